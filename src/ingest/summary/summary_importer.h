// The importer of commdx summaries (`commdx summarize`, docs/summary-format.md): recognised by
// its first key, `"commdx_summary"`, whatever the file is called. What it holds goes into the
// Job as the summarised files would have put it there: the traces as they were built, the text
// inputs through their own importers, the input-quality notes of the run that made it, the files
// it skipped. The files it was made from are added to part.inputs (the loader lists them on the
// summary's row, InputFile::summarised_from).
#pragma once

#include <string_view>

#include "base/file.h"
#include "base/result.h"
#include "model/job.h"

namespace commdx::ingest {

bool SniffSummary(std::string_view head);
Status ParseSummary(const FileText& file, Job& part);

}  // namespace commdx::ingest
