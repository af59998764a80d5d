// The live facts of this node that `commdx doctor` and `commdx env` both start from: the
// topology (NVML when the root is "/", sysfs, /proc) and the environment of this process
// (variables, limits, libraries), the GPU facts the environment probe cannot see filled in from
// the topology (CUDA driver version, host; the driver version NVML gives, preferred to /proc's).
#pragma once

#include <string>

#include "model/job.h"

namespace commdx::cli {

struct LiveProbeOptions {
  std::string root = "/";  // where sys/ and proc/ are (tests point it at a fake tree)
  std::string nccl_lib;    // --nccl-lib: checked first among the libnccl.so.2 candidates
};

Job ProbeThisNode(const LiveProbeOptions& options);

// The filling-in step of ProbeThisNode, on facts already probed.
void FillEnvironmentFromTopology(Job& job);

}  // namespace commdx::cli
