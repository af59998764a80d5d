// The job's own stdout/stderr (torchrun, srun, mpirun): PyTorch ProcessGroupNCCL watchdog lines
// in any launcher's rank prefix ("[rank3]:", "[default3]:", "[1,3]<stderr>:", "3: ") and glog
// header. Shares its file with the NCCL log importer (the same console holds both).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "base/file.h"
#include "base/result.h"
#include "ingest/window_reader.h"
#include "model/job.h"

namespace commdx::ingest {

bool SniffJobLog(std::string_view head);
Status ParseJobLog(const FileText& file, Job& job);
// The same, window by window, for a log too large to hold (window_reader.h).
std::unique_ptr<WindowReader> JobLogWindows(const std::string& path, Job& job);

}  // namespace commdx::ingest
