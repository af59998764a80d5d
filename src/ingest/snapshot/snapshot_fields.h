// Typed reads of one JSON object of a snapshot. A key that is missing or null gives the default;
// a key of the wrong type is counted in job.quality ("snapshot.bad_field") and gives the default.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "base/file.h"
#include "model/job.h"

namespace commdx::ingest::snapshot {

class Fields {
 public:
  Fields(simdjson::dom::element obj, const FileText& file, Job& job, std::string where)
      : obj_(obj), file_(file), job_(job), where_(std::move(where)) {}

  std::string Str(const char* key);
  int64_t Int(const char* key, int64_t def = 0);
  std::optional<int64_t> OptInt(const char* key);
  std::optional<uint64_t> OptUint(const char* key);
  double Double(const char* key, double def = 0);
  bool Bool(const char* key, bool def = false);
  std::optional<bool> OptBool(const char* key);
  std::vector<std::string> StrList(const char* key);
  // Elements of an array of objects (empty when missing).
  std::vector<simdjson::dom::element> Objects(const char* key);
  // The object at `key` (none when missing or not an object).
  std::optional<simdjson::dom::element> ObjectAt(const char* key);

 private:
  // The value of `key`, or nullopt when missing or null.
  std::optional<simdjson::dom::element> Get(const char* key);
  void Bad(const char* key, const char* expected);

  simdjson::dom::element obj_;
  const FileText& file_;
  Job& job_;
  std::string where_;
};

// The reading visitor of snapshot_schema.h: fills model objects from one JSON object. A missing
// key leaves the model's default in place.
class Reader {
 public:
  Reader(simdjson::dom::element obj, const FileText& file, Job& job, std::string where)
      : f_(obj, file, job, std::move(where)), file_(file), job_(job) {}

  void Field(const char* key, std::string& x) { x = f_.Str(key); }
  void Field(const char* key, bool& x) { x = f_.Bool(key, x); }
  void Field(const char* key, std::optional<bool>& x) { x = f_.OptBool(key); }
  void Field(const char* key, std::optional<uint64_t>& x) { x = f_.OptUint(key); }
  void Field(const char* key, std::optional<int>& x) {
    if (auto v = f_.OptInt(key)) x = static_cast<int>(*v);
  }
  void Field(const char* key, uint64_t& x) {
    if (auto v = f_.OptUint(key)) x = *v;
  }
  template <class I, class = std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool> &&
                                              !std::is_same_v<I, uint64_t>>>
  void Field(const char* key, I& x) {
    x = static_cast<I>(f_.Int(key, x));
  }
  void Field(const char* key, std::vector<std::string>& x) { x = f_.StrList(key); }
  void Double(const char* key, double& x, int /*decimals*/) { x = f_.Double(key, x); }
  // -1 stands for unlimited.
  void Limit(const char* key, std::optional<uint64_t>& x);
  template <class E, class Name, class Parse>
  void Enum(const char* key, E& x, Name /*name*/, Parse parse) {
    x = parse(f_.Str(key));
  }
  template <class E, class Name, class Parse>
  void EnumList(const char* key, std::vector<E>& xs, Name /*name*/, Parse parse) {
    for (const auto& s : f_.StrList(key)) xs.push_back(parse(s));
  }
  template <class T, class Schema>
  void Object(const char* key, const char* where, T& x, Schema schema) {
    if (auto e = f_.ObjectAt(key)) {
      Reader r(*e, file_, job_, where);
      schema(r, x);
    }
  }
  template <class T, class Schema>
  void Objects(const char* key, const char* where, std::vector<T>& xs, Schema schema) {
    for (auto e : f_.Objects(key)) {
      Reader r(e, file_, job_, where);
      schema(r, xs.emplace_back());
    }
  }

 private:
  Fields f_;
  const FileText& file_;
  Job& job_;
};

}  // namespace commdx::ingest::snapshot
