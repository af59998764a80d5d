#include "cli/live_probe.h"

#include "probe/env_probe.h"
#include "probe/topology_probe.h"

extern char** environ;

namespace commdx::cli {

Job ProbeThisNode(const LiveProbeOptions& options) {
  Job job;
  probe::ProbeOptions topo;
  topo.root = options.root;
  job.topo = probe::ProbeLiveTopology(topo);
  probe::EnvProbeOptions env;
  env.root = options.root;
  env.nccl_lib = options.nccl_lib;
  for (char** e = environ; e && *e; ++e) env.environ.emplace_back(*e);
  job.env = probe::ProbeEnvironment(env);
  FillEnvironmentFromTopology(job);
  return job;
}

std::vector<diagnose::Gap> TopologyProbeGaps(const Topology& topo) {
  std::vector<diagnose::Gap> gaps;
  if (topo.gpu_source != "nvml")
    gaps.push_back({"GPU facts from NVML (names, NVLinks, P2P status, PCIe, throttling, processes)",
                    topo.nvml_error.empty() ? "run on a machine with the NVIDIA driver"
                                            : "NVML: " + topo.nvml_error});
  if (!topo.bridges.empty()) {
    bool readable = false;
    for (const auto& b : topo.bridges) readable |= b.config_readable;
    if (!readable)
      gaps.push_back({"PCIe ACS on bridges between GPUs/NICs",
                      "run as root (config space beyond 64 bytes is root-only), or "
                      "`sudo lspci -vvv | grep ACSCtl`"});
  }
  return gaps;
}

std::vector<diagnose::Gap> EnvironmentProbeGaps(const Topology& topo) {
  if (topo.gpu_source == "nvml") return {};
  return {{"GPU-dependent checks (MIG, CUDA_VISIBLE_DEVICES against GPUs, driver's CUDA version)",
           "NVML: " + topo.nvml_error}};
}

void FillEnvironmentFromTopology(Job& job) {
  if (job.env.cuda_driver_version == 0) job.env.cuda_driver_version = job.topo.cuda_driver_version;
  // NVML's driver version is preferred to the /proc reading when there is one
  // (docs/measurements/topo-h200x2.md: the open kernel module's /proc text was misread once).
  if (!job.topo.driver_version.empty()) job.env.driver_version = job.topo.driver_version;
  if (job.env.host.empty()) job.env.host = job.topo.host;
}

}  // namespace commdx::cli
