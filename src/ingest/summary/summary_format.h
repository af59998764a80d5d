// The commdx summary file (`commdx summarize`, docs/summary-format.md): one JSON document, plain
// or gzip, that holds what `commdx diagnose` reads from a set of inputs, so that the inputs can be
// reduced where they are and only the summaries gathered. Version 1 holds each trace as the model
// the trace importers build (RankTrace, its event tables as rows of integers), the text of every
// other input it carries (NCCL logs, job logs, Flight Recorder dumps in JSON, nccl-tests output,
// the Flight Recorder analyzer's text), read again by their importers, the input-quality notes of
// the run that made it, and the files it left out.
#pragma once

#include <string>
#include <string_view>

#include "base/json_writer.h"
#include "base/result.h"
#include "model/job.h"

namespace commdx::ingest::summary {

inline constexpr std::string_view kFormat = "commdx-summary";
// Raised whenever a field changes meaning or a row gains or loses a column; a reader reads its
// own version only (docs/summary-format.md, "Versions").
inline constexpr int kVersion = 1;
// The name `commdx summarize` gives its files; the importer recognises content, not names.
inline constexpr std::string_view kFileSuffix = ".commdx-summary.json";

// Writes `t` as the summary's trace object (rows of integers; docs/summary-format.md "traces").
void WriteTrace(const RankTrace& t, JsonWriter& w);

}  // namespace commdx::ingest::summary
