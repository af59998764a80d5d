// Reading a summary back (summary_importer.cc, trace_read.cc): simdjson's DOM (a summary is small)
// and errors that name the file and the field that is wrong, and what was expected there:
//   run/rank0.commdx-summary.json.gz: error: summary field traces[0].gpu_ops.dur_ns[12]: expected
//   an integer
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/json_writer.h"
#include "base/result.h"
#include "model/trace.h"

namespace commdx::ingest::summary {

// Where the reader is: the file and the path of the field, for errors.
struct Place {
  const std::string& file;
  std::string at;  // "traces[0].gpu_ops[12]"

  Place Field(std::string_view key) const {
    return {file, at.empty() ? std::string(key) : at + "." + std::string(key)};
  }
  Place Index(size_t i) const { return {file, at + "[" + std::to_string(i) + "]"}; }
  Error Expected(std::string_view what) const;
};

Result<simdjson::dom::element> Member(simdjson::dom::object o, std::string_view key,
                                      const Place& p);
Result<std::string> GetString(simdjson::dom::object o, std::string_view key, const Place& p);
Result<int64_t> GetInt(simdjson::dom::object o, std::string_view key, const Place& p);
Result<bool> GetBool(simdjson::dom::object o, std::string_view key, const Place& p);
// A number (an integer too); null reads as NaN (JsonWriter::Exact writes non-finite as null).
Result<double> GetDouble(simdjson::dom::object o, std::string_view key, const Place& p);
// An array of integers; with `delta`, each cell the difference from the one before (summed back).
Result<std::vector<int64_t>> GetInts(simdjson::dom::object o, std::string_view key, const Place& p,
                                     bool delta = false);
// What GetInts reads.
void WriteInts(JsonWriter& w, std::string_view key, const std::vector<int64_t>& v,
               bool delta = false);
Result<simdjson::dom::array> GetArray(simdjson::dom::object o, std::string_view key,
                                      const Place& p);
Result<simdjson::dom::object> AsObject(simdjson::dom::element e, const Place& p);

// Calls fn(object, place) for each element of the array `key`, each an object.
template <class Fn>
Status Objects(simdjson::dom::object o, std::string_view key, const Place& p, Fn fn) {
  COMMDX_ASSIGN_OR_RETURN(simdjson::dom::array a, GetArray(o, key, p));
  size_t i = 0;
  for (simdjson::dom::element e : a) {
    Place here = p.Field(key).Index(i++);
    COMMDX_ASSIGN_OR_RETURN(simdjson::dom::object item, AsObject(e, here));
    COMMDX_TRY(fn(item, here));
  }
  return Ok{};
}

// A trace object as WriteTrace wrote it. Indexes between tables (a kernel's collective, an op's
// name) are checked, so what the analyses index with is in range.
Result<RankTrace> ReadTrace(simdjson::dom::element e, const Place& p);

}  // namespace commdx::ingest::summary
