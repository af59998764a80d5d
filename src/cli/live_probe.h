// The live facts of this node that `commdx doctor` and `commdx env` both start from: the
// topology (NVML when the root is "/", sysfs, /proc) and the environment of this process
// (variables, limits, libraries), the GPU facts the environment probe cannot see filled in from
// the topology (CUDA driver version, host; the driver version NVML gives, preferred to /proc's).
#pragma once

#include <string>
#include <vector>

#include "diagnose/diagnosis.h"
#include "model/job.h"

namespace commdx::cli {

struct LiveProbeOptions {
  std::string root = "/";  // where sys/ and proc/ are (tests point it at a fake tree)
  std::string nccl_lib;    // --nccl-lib: checked first among the libnccl.so.2 candidates
};

Job ProbeThisNode(const LiveProbeOptions& options);

// What a live topology probe could not see: GPU facts without NVML, PCIe ACS on bridges whose
// config space only root may read (`commdx topo`).
std::vector<diagnose::Gap> TopologyProbeGaps(const Topology& topo);
// What the environment checks could not do without NVML (`commdx env`).
std::vector<diagnose::Gap> EnvironmentProbeGaps(const Topology& topo);

// The filling-in step of ProbeThisNode, on facts already probed.
void FillEnvironmentFromTopology(Job& job);

}  // namespace commdx::cli
