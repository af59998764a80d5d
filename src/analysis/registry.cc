#include "analysis/registry.h"

#include <algorithm>

#include "analysis/bench_analyzers.h"
#include "analysis/catalogue.h"
#include "analysis/comm_analyzers.h"
#include "analysis/env_analyzers.h"
#include "analysis/topo_analyzers.h"
#include "analysis/trace_analyzers.h"

namespace commdx::analysis {

const std::vector<Analyzer>& Analyzers() {
  static const std::vector<Analyzer> kAnalyzers = {
      {"trace", "profiler traces: step breakdown, overlap, syncs, stalls, skew, bandwidth", "trace",
       &FindTraceIssues},
      {"comm_socket_fallback", "NET/Socket where RDMA or P2P/SHM should be", "logs",
       &FindCommSocketFallback},
      {"comm_p2p_disabled", "GPUs of one node not on P2P", "logs", &FindCommP2pDisabled},
      {"comm_gdr_disabled", "RDMA without GPUDirect", "logs", &FindCommGdrDisabled},
      {"comm_few_channels", "channel count and why", "logs", &FindCommFewChannels},
      {"comm_env_override", "NCCL_* overrides", "logs", &FindCommEnvOverrides},
      {"comm_version_mismatch", "NCCL versions across ranks", "logs", &FindCommVersionMismatch},
      {"comm_duplicate_gpu", "two ranks on one GPU", "logs", &FindCommDuplicateGpu},
      {"comm_wrong_interface", "loopback/bridge/tunnel interfaces", "logs",
       &FindCommWrongInterface},
      {"comm_warnings", "every NCCL WARN explained", "logs", &FindCommWarnings},
      {"comm_nvls", "NVLS availability", "logs", &FindCommNvls},
      {"comm_net_plugin", "network stacks across hosts", "logs", &FindCommNetPluginMismatch},
      {"comm_host_mismatch", "bootstrap family and transport across hosts", "logs",
       &FindCommHostMismatch},
      {"comm_ofi_provider", "AWS OFI provider", "logs", &FindCommOfiProvider},
      {"comm_multi_nic", "NICs listed vs used", "logs", &FindCommMultiNic},
      {"comm_mixed_link", "IB and RoCE in one list", "logs", &FindCommMixedLinkLayers},
      {"comm_acs", "PCIe ACS in pasted lspci output", "logs", &FindCommAcs},
      {"comm_unsupported_gpu", "GPU not supported by the NCCL build", "logs",
       &FindCommUnsupportedGpu},
      {"comm_graph_search", "topology search fell back", "logs", &FindCommGraphSearch},
      {"comm_init_incomplete", "init started but not completed", "logs", &FindCommInitIncomplete},
      {"bench_low_busbw", "benchmark plateau busbw vs the link's line rate", "bench",
       &FindBenchLowBusbw},
      {"bench_high_latency", "benchmark small-message latency floor", "bench",
       &FindBenchHighLatency},
      {"bench_asymmetric_pair", "P2P pair slower than its peers", "bench",
       &FindBenchAsymmetricPair},
      {"bench_wrong_results", "collective results checked wrong", "bench", &FindBenchWrongResults},
      {"topo_pcie_only", "GPU pairs without NVLink", "topo", &FindTopoPcieOnly},
      {"topo_nvlink_degraded", "inactive NVLinks, fewer links than peers", "topo",
       &FindTopoNvlinkDegraded},
      {"topo_pcie_downtrained", "PCIe link below its max width/speed", "topo",
       &FindTopoPcieDowntrained},
      {"topo_acs", "ACS redirect on bridges between GPUs/NICs", "topo", &FindTopoAcsEnabled},
      {"topo_placement", "GPU processes vs NUMA node, shared GPUs, shared cores", "topo",
       &FindTopoPlacement},
      {"topo_health", "NVLink error counters, clock throttling", "topo", &FindTopoHealth},
      {"env_limits", "/dev/shm size, locked-memory limit", "env", &FindEnvLimits},
      {"env_gpus", "MIG, CUDA_VISIBLE_DEVICES", "env", &FindEnvGpus},
      {"env_variables", "NCCL_/TORCH_NCCL_/CUDA_ variables, OMP_NUM_THREADS", "env",
       &FindEnvVariables},
      {"env_libraries", "which libnccl.so.2, CUDA runtime vs driver", "env", &FindEnvLibraries},
      {"env_platform", "nvidia_peermem, IOMMU, container", "env", &FindEnvPlatform},
  };
  return kAnalyzers;
}

void ApplyCatalogueDefaults(Finding& finding) {
  const CatalogueEntry* e = FindCatalogueEntry(finding.id);
  if (!e) return;
  if (finding.title.empty()) finding.title = e->title;
  if (finding.method_step == 0) finding.method_step = e->method_step;
}

namespace {

std::vector<Finding> Run(const Job& job, const Options& options,
                         const std::vector<std::string>& sources, const TraceFacts* facts) {
  std::vector<Finding> out;
  for (const auto& a : Analyzers()) {
    if (!sources.empty() && std::find(sources.begin(), sources.end(), a.source) == sources.end())
      continue;
    std::vector<Finding> found;
    if (facts && a.run == &FindTraceIssues) {
      if (!job.trace.empty()) found = FindTraceIssuesWith(job, *facts, options);
    } else {
      found = a.run(job, options);
    }
    for (auto& f : found) {
      if (f.source.empty()) f.source = a.source;
      ApplyCatalogueDefaults(f);
      out.push_back(std::move(f));
    }
  }
  return out;
}

}  // namespace

std::vector<Finding> RunAnalyzers(const Job& job, const Options& options,
                                  const std::vector<std::string>& sources) {
  return Run(job, options, sources, nullptr);
}

std::vector<Finding> RunAnalyzers(const Job& job, const Options& options, const TraceFacts& facts) {
  return Run(job, options, {}, &facts);
}

}  // namespace commdx::analysis
