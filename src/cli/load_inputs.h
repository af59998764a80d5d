// What `commdx diagnose` reads: every file under the given paths, recognised by its content.
// Profiler (Kineto) traces are streamed from disk by the kineto loader, files in parallel;
// every other file goes through ingest::LoadJob (one file may hold several text formats).
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "model/job.h"

namespace commdx::cli {

// job.inputs keep the order of the files (folders walked as ingest::LoadJob walks them). A broken
// trace is the error before any other file's (traces are read first).
Result<Job> LoadDiagnoseInputs(const std::vector<std::string>& paths);

}  // namespace commdx::cli
