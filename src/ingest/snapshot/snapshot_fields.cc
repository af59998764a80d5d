#include "ingest/snapshot/snapshot_fields.h"

namespace commdx::ingest::snapshot {

using simdjson::dom::element;
using simdjson::dom::element_type;

std::optional<element> Fields::Get(const char* key) {
  element v;
  if (obj_[key].get(v) != simdjson::SUCCESS) return std::nullopt;
  if (v.type() == element_type::NULL_VALUE) return std::nullopt;
  return v;
}

void Fields::Bad(const char* key, const char* expected) {
  job_.quality.Add("snapshot.bad_field", DiagSeverity::kWarning,
                   where_ + "." + key + " is not " + expected + "; left unknown", {file_.path});
}

std::string Fields::Str(const char* key) {
  auto v = Get(key);
  if (!v) return "";
  std::string_view s;
  if (v->get(s) != simdjson::SUCCESS) {
    Bad(key, "a string");
    return "";
  }
  return std::string(s);
}

std::optional<int64_t> Fields::OptInt(const char* key) {
  auto v = Get(key);
  if (!v) return std::nullopt;
  int64_t i = 0;
  if (v->get(i) == simdjson::SUCCESS) return i;
  Bad(key, "an integer");
  return std::nullopt;
}

std::optional<uint64_t> Fields::OptUint(const char* key) {
  auto v = Get(key);
  if (!v) return std::nullopt;
  uint64_t u = 0;
  if (v->get(u) == simdjson::SUCCESS) return u;
  Bad(key, "a non-negative integer");
  return std::nullopt;
}

int64_t Fields::Int(const char* key, int64_t def) { return OptInt(key).value_or(def); }

double Fields::Double(const char* key, double def) {
  auto v = Get(key);
  if (!v) return def;
  double d = 0;
  if (v->get(d) == simdjson::SUCCESS) return d;
  int64_t i = 0;
  if (v->get(i) == simdjson::SUCCESS) return static_cast<double>(i);
  Bad(key, "a number");
  return def;
}

std::optional<bool> Fields::OptBool(const char* key) {
  auto v = Get(key);
  if (!v) return std::nullopt;
  bool b = false;
  if (v->get(b) == simdjson::SUCCESS) return b;
  Bad(key, "true/false");
  return std::nullopt;
}

bool Fields::Bool(const char* key, bool def) { return OptBool(key).value_or(def); }

std::vector<std::string> Fields::StrList(const char* key) {
  std::vector<std::string> out;
  auto v = Get(key);
  if (!v) return out;
  simdjson::dom::array arr;
  if (v->get(arr) != simdjson::SUCCESS) {
    Bad(key, "an array");
    return out;
  }
  for (element e : arr) {
    std::string_view s;
    if (e.get(s) == simdjson::SUCCESS) out.emplace_back(s);
  }
  return out;
}

std::vector<element> Fields::Objects(const char* key) {
  std::vector<element> out;
  auto v = Get(key);
  if (!v) return out;
  simdjson::dom::array arr;
  if (v->get(arr) != simdjson::SUCCESS) {
    Bad(key, "an array");
    return out;
  }
  for (element e : arr)
    if (e.type() == element_type::OBJECT) out.push_back(e);
  return out;
}

std::optional<element> Fields::ObjectAt(const char* key) {
  auto v = Get(key);
  if (v && v->type() != element_type::OBJECT) {
    Bad(key, "an object");
    return std::nullopt;
  }
  return v;
}

void Reader::Limit(const char* key, std::optional<uint64_t>& x) {
  auto v = f_.OptInt(key);
  if (!v)
    x = f_.OptUint(key);
  else
    x = *v < 0 ? kUnlimited : static_cast<uint64_t>(*v);
}

}  // namespace commdx::ingest::snapshot
