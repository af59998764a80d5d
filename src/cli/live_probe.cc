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

void FillEnvironmentFromTopology(Job& job) {
  if (job.env.cuda_driver_version == 0) job.env.cuda_driver_version = job.topo.cuda_driver_version;
  // NVML's driver version is preferred to the /proc reading when there is one
  // (docs/measurements/topo-h200x2.md: the open kernel module's /proc text was misread once).
  if (!job.topo.driver_version.empty()) job.env.driver_version = job.topo.driver_version;
  if (job.env.host.empty()) job.env.host = job.topo.host;
}

}  // namespace commdx::cli
