// Typed reads of one JSON object of a snapshot. A key that is missing or null gives the default;
// a key of the wrong type is counted in job.quality ("snapshot.bad_field") and gives the default.
#pragma once

#include <simdjson.h>

#include <optional>
#include <string>
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

 private:
  // The value of `key`, or nullopt when missing or null.
  std::optional<simdjson::dom::element> Get(const char* key);
  void Bad(const char* key, const char* expected);

  simdjson::dom::element obj_;
  const FileText& file_;
  Job& job_;
  std::string where_;
};

}  // namespace commdx::ingest::snapshot
