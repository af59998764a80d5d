#include "ingest/summary/summary_read.h"

#include <cmath>

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

Result<double> GetDouble(simdjson::dom::object o, std::string_view key, const Place& p) {
  COMMDX_ASSIGN_OR_RETURN(simdjson::dom::element e, Member(o, key, p));
  if (e.is_null()) return std::nan("");
  double v = 0;
  if (e.get(v) != simdjson::SUCCESS) return p.Field(key).Expected("a number");
  return v;
}

Result<std::vector<int64_t>> GetInts(simdjson::dom::object o, std::string_view key, const Place& p,
                                     bool delta) {
  COMMDX_ASSIGN_OR_RETURN(simdjson::dom::array a, GetArray(o, key, p));
  std::vector<int64_t> out;
  out.reserve(a.size());
  uint64_t sum = 0;
  for (simdjson::dom::element cell : a) {
    int64_t v = 0;
    if (cell.get(v) != simdjson::SUCCESS)
      return p.Field(key).Index(out.size()).Expected("an integer");
    sum = delta ? sum + static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    out.push_back(static_cast<int64_t>(sum));
  }
  return out;
}

void WriteInts(JsonWriter& w, std::string_view key, const std::vector<int64_t>& v, bool delta) {
  w.Key(key).BeginArray();
  uint64_t prev = 0;
  for (int64_t x : v) {
    const auto u = static_cast<uint64_t>(x);
    w.Int(delta ? static_cast<int64_t>(u - prev) : x);
    prev = u;
  }
  w.EndArray();
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

}  // namespace commdx::ingest::summary
