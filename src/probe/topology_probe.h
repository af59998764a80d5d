// `commdx topo` live: builds a Topology of this machine from NVML (through a GpuSource), sysfs
// and /proc, all read-only and without root (root only adds ACS, which lives in the part of PCI
// config space that sysfs hides from others).
#pragma once

#include <string>

#include "model/topology.h"
#include "probe/gpu_source.h"
#include "probe/sysfs.h"

namespace commdx::probe {

struct ProbeOptions {
  std::string root = "/";  // where sys/ and proc/ are (tests point it at a fake tree)
  bool processes = true;   // list GPU processes and read their /proc entries
  bool acs = true;         // read ACS control of bridges between GPUs and NICs
};

// `gpus` may be null: NVML could not be opened; `nvml_error` says why. GPUs are then listed
// from sysfs (NVIDIA 3D/VGA controllers) with what sysfs knows about them.
Topology ProbeTopology(const ProbeOptions& options, GpuSource* gpus, const std::string& nvml_error);

// ProbeTopology with the real NVML: opened only when options.root is "/" (a fake tree has no
// driver). When NVML cannot be opened, the reason is in the result's nvml_error.
Topology ProbeLiveTopology(const ProbeOptions& options);

// Parts of the above, exposed for tests.
void AddNvmlGpus(GpuSource& source, Topology& topo);              // GPUs, NVLinks, P2P, ancestors
void AddSysfsGpus(const SysRoot& root, Topology& topo);           // when NVML is missing
void AddPciFacts(const SysRoot& root, Topology& topo, bool acs);  // NUMA/affinity, paths, bridges
void AddGpuProcesses(GpuSource& source, const SysRoot& root, Topology& topo);

// NVML raw codes to model values.
P2PStatus P2PStatusFromNvml(unsigned code);
PathType PathFromNvmlAncestor(unsigned level);
int NvLinkGenerationFromNvml(unsigned version);   // nvmlNvlinkVersion_t -> 1..5
double NvLinkSpeedForGeneration(int generation);  // GB/s per link per direction as smi reads

}  // namespace commdx::probe
