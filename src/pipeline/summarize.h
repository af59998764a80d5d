// `commdx summarize PATH... -o DIR`: the inputs reduced to one summary file (ingest/summary,
// docs/summary-format.md) that `commdx diagnose` reads as it reads the inputs themselves.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "ingest/summary/summarize.h"

namespace commdx::pipeline {

struct SummarizeRequest {
  std::vector<std::string> paths;
  std::string out_dir;  // made when missing
  // The file's name before ".commdx-summary.json[.gz]"; empty: "rank<R>" for one rank's traces,
  // "ranks<A>-<B>" for several, else this host's name.
  std::string name;
  bool gzip = true;
  bool force = false;  // replace a read-only file
  int threads = 0;
};

struct SummarizeResult {
  std::string path;                  // the file written
  uint64_t bytes = 0;                // its size
  ingest::summary::Summary summary;  // json left empty
};

Result<SummarizeResult> RunSummarize(const SummarizeRequest& request);

}  // namespace commdx::pipeline
