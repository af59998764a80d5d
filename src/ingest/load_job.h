// Turns the paths a user gave into one Job: expands folders, reads each file (gzip or plain),
// recognises it by content, and hands it to its importer.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "model/job.h"

namespace commdx::ingest {

struct LoadOptions {
  // Only these importers are used (empty = all). A file no allowed importer recognises is
  // listed as skipped.
  std::vector<std::string> only;
  // When a single importer is forced (e.g. `commdx logs FILE`), an unrecognised file given
  // explicitly is still parsed with it instead of being skipped.
  bool force_single = false;
};

Result<Job> LoadJob(const std::vector<std::string>& paths, const LoadOptions& options);

}  // namespace commdx::ingest
