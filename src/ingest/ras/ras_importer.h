// Importer for the report of NCCL's RAS client (`ncclras`, NCCL 2.24+; `-f json` since 2.28.7):
// per communicator the ranks that answered, those missing, processes considered dead, errors and
// mismatches. Text: recognised by its "NCCL version ... compiled with CUDA" line followed by the
// "Job summary" and "Communicators..." sections. JSON: an object with "communicators_count" and
// "cuda_runtime_version". NCCL 2.28.9 writes a missing rank without the comma after "nvml_dev":
// that JSON is repaired and read (input-quality note ras.repaired_json). The monitor mode's event
// stream (NCCL 2.29+) is read too: ras_monitor.cc.
#pragma once

#include <string_view>

#include "base/file.h"
#include "base/result.h"
#include "model/job.h"

namespace commdx::ingest {

bool SniffRas(std::string_view head);
Status ParseRas(const FileText& file, Job& job);

namespace ras {
Status ParseRasText(const FileText& file, Job& job);
Status ParseRasJson(const FileText& file, Job& job);
bool LooksRasJson(std::string_view head);
// "Process 1315 on node 127.0.0.1 managing GPU 0": the pid, host and first GPU into `r`; false
// when the line does not start so. The report's DEAD block and the monitor's events name a
// process this way.
bool ReadProcess(std::string_view line, RasRank& r);
// Monitor mode (`ncclras -m`, NCCL 2.29+): timestamped peer events, text or JSON (ras_monitor.cc).
bool LooksRasMonitor(std::string_view head);
Status ParseRasMonitor(const FileText& file, Job& job);
}  // namespace ras

}  // namespace commdx::ingest
