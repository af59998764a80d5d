#include "ingest/ras/ras_importer.h"

#include "base/text.h"

namespace commdx::ingest {

namespace ras {

// {
//   "nccl_version": "2.28.9",
//   "cuda_runtime_version": 13000,
//   ...
//   "communicators_count": 2,
bool LooksRasJson(std::string_view head) {
  std::string_view t = TrimLeft(head);
  return !t.empty() && t.front() == '{' && Contains(head, "\"communicators_count\"") &&
         Contains(head, "\"cuda_runtime_version\"") && Contains(head, "\"nccl_version\"");
}

}  // namespace ras

// NCCL version 2.28.9 compiled with CUDA 13.0
// CUDA runtime version 13000, driver version 13000
//
// Job summary
// ===========
bool SniffRas(std::string_view head) {
  if (ras::LooksRasJson(head) || ras::LooksRasMonitor(head)) return true;
  // A report pasted without its first lines (an issue thread, a guide): its communicator table's
  // header, or its words for operation counts that differ.
  if (Contains(head, "Communicator ranks have different") ||
      (Contains(head, "Comms") && Contains(head, "in group") && Contains(head, "per comm") &&
       Contains(head, "Errors")))
    return true;
  std::string_view t = TrimLeft(head);
  if (!StartsWith(t, "NCCL version ") ||
      !Contains(t.substr(0, t.find('\n')), " compiled with CUDA"))
    return false;
  return Contains(head, "\nJob summary\n") || Contains(head, "\nCommunicators...");
}

Status ParseRas(const FileText& file, Job& job) {
  if (ras::LooksRasMonitor(std::string_view(file.data).substr(0, 4096)))
    return ras::ParseRasMonitor(file, job);
  if (ras::LooksRasJson(file.data)) return ras::ParseRasJson(file, job);
  return ras::ParseRasText(file, job);
}

}  // namespace commdx::ingest
