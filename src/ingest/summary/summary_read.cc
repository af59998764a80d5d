#include "ingest/summary/summary_read.h"

namespace commdx::ingest::summary {

Error Place::Expected(std::string_view what) const {
  return MakeError(ErrorCode::kBadInput,
                   "summary field " + (at.empty() ? std::string("(top)") : at) + ": expected " +
                       std::string(what),
                   {file});
}

Result<simdjson::dom::element> Member(simdjson::dom::object o, std::string_view key,
                                      const Place& p) {
  simdjson::dom::element e;
  if (o.at_key(key).get(e) != simdjson::SUCCESS) return p.Field(key).Expected("a value (missing)");
  return e;
}

Result<std::string> GetString(simdjson::dom::object o, std::string_view key, const Place& p) {
  COMMDX_ASSIGN_OR_RETURN(simdjson::dom::element e, Member(o, key, p));
  std::string_view s;
  if (e.get(s) != simdjson::SUCCESS) return p.Field(key).Expected("a string");
  return std::string(s);
}

Result<int64_t> GetInt(simdjson::dom::object o, std::string_view key, const Place& p) {
  COMMDX_ASSIGN_OR_RETURN(simdjson::dom::element e, Member(o, key, p));
  int64_t v = 0;
  if (e.get(v) != simdjson::SUCCESS) return p.Field(key).Expected("an integer");
  return v;
}

Result<bool> GetBool(simdjson::dom::object o, std::string_view key, const Place& p) {
  COMMDX_ASSIGN_OR_RETURN(simdjson::dom::element e, Member(o, key, p));
  bool v = false;
  if (e.get(v) != simdjson::SUCCESS) return p.Field(key).Expected("true or false");
  return v;
}

Result<simdjson::dom::array> GetArray(simdjson::dom::object o, std::string_view key,
                                      const Place& p) {
  COMMDX_ASSIGN_OR_RETURN(simdjson::dom::element e, Member(o, key, p));
  simdjson::dom::array a;
  if (e.get(a) != simdjson::SUCCESS) return p.Field(key).Expected("an array");
  return a;
}

Result<simdjson::dom::object> AsObject(simdjson::dom::element e, const Place& p) {
  simdjson::dom::object o;
  if (e.get(o) != simdjson::SUCCESS) return p.Expected("an object");
  return o;
}

Status ReadRow(simdjson::dom::element e, size_t n, int64_t* out, const Place& p) {
  simdjson::dom::array a;
  size_t i = 0;
  if (e.get(a) == simdjson::SUCCESS) {
    for (simdjson::dom::element c : a) {
      if (i == n || c.get(out[i]) != simdjson::SUCCESS) break;
      ++i;
    }
    if (i == n && a.size() == n) return Ok{};
  }
  return p.Expected("an array of " + std::to_string(n) + " integers");
}

}  // namespace commdx::ingest::summary
