// The commdx summary file (`commdx summarize`, docs/summary-format.md): one JSON document, plain
// or gzip, that holds what `commdx diagnose` reads from a set of inputs, so that the inputs can be
// reduced where they are and only the summaries gathered. Version 3 holds each trace as what is
// left of the model the trace importers build once its rank is digested (RankTrace without its
// events: facts, streams, collectives, steps as columns of integers) and the digest itself
// (digest_codec.h), the text of every other input it carries (NCCL logs, job logs, Flight
// Recorder dumps, nccl-tests output, the Flight Recorder analyzer's text), read again by their
// importers, the input-quality notes of the run that made it, and the files it left out.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/json_writer.h"
#include "base/result.h"
#include "model/job.h"

namespace commdx::ingest::summary {

inline constexpr std::string_view kFormat = "commdx-summary";
// Raised whenever a field changes meaning or a row gains or loses a column; a reader reads its
// own version only (docs/summary-format.md, "Versions").
inline constexpr int kVersion = 3;
// The name `commdx summarize` gives its files; the importer recognises content, not names.
inline constexpr std::string_view kFileSuffix = ".commdx-summary.json";

// A column of an event table. A delta column holds each row's value minus the previous row's
// (the first row's minus 0): sorted times and increasing ids become small numbers, which gzip
// packs several times tighter than the values.
struct Column {
  const char* name;
  bool delta;
};

// The columns of each table, in the order the writer and the reader pass a row's cells
// (docs/summary-format.md, "traces"). `dur` is end - start.
inline constexpr Column kStreamColumns[] = {{"device", false},  {"stream", false},
                                            {"ops", false},     {"busy_ns", false},
                                            {"comm_ns", false}, {"is_comm", false}};
inline constexpr Column kCollectiveColumns[] = {
    {"start_ns", false},   {"end_ns", false},     {"issue_ns", false}, {"in_nelems", false},
    {"out_nelems", false}, {"bytes", false},      {"seq", false},      {"kernel", false},
    {"pg", false},         {"group_size", false}, {"peer", false},     {"grid_x", false},
    {"name", false},       {"dtype", false},      {"type", false},     {"family", false},
    {"from_args", false},  {"launched", false}};
inline constexpr Column kStepColumns[] = {{"number", false},     {"cpu_start_ns", false},
                                          {"cpu_end_ns", false}, {"start_ns", false},
                                          {"end_ns", false},     {"cut", false}};

// Writes `t` as the summary's trace object (columns of integers and its digest;
// docs/summary-format.md "traces"). Errors: the rank has no digest, or no codec is installed.
Status WriteTrace(const RankTrace& t, JsonWriter& w);

}  // namespace commdx::ingest::summary
