// NCCL log text read as one file named `path`, for the tests of the NCCL-log importer and of the
// analyses that read its facts.
#pragma once

#include <string>

#include "base/file.h"
#include "ingest/nccl_log/nccl_log_importer.h"
#include "model/job.h"

namespace commdx::nccl_log_test {

inline Job Parse(const std::string& text, const std::string& path = "t.log") {
  FileText f;
  f.path = path;
  f.data = text;
  Job job;
  ingest::ParseNcclLogText(f, job);
  return job;
}

}  // namespace commdx::nccl_log_test
