#include "ingest/nccl_log/nccl_log_importer.h"

#include "base/text.h"

namespace commdx::ingest {

// Placeholder until the line parser lands: recognises NCCL lines, records the file.
bool SniffNcclLog(std::string_view head) { return Contains(head, "NCCL INFO") || Contains(head, "NCCL WARN"); }

Status ParseNcclLog(const FileText& file, Job& job) {
  job.nccl.files.push_back(file.path);
  return Ok{};
}

}  // namespace commdx::ingest
