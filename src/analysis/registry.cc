#include "analysis/registry.h"

#include <algorithm>

#include "analysis/bench_analyzers.h"
#include "analysis/bench_wide_tail.h"
#include "analysis/calls_small_collectives.h"
#include "analysis/catalogue.h"
#include "analysis/comm_analyzers.h"
#include "analysis/env_analyzers.h"
#include "analysis/hang_analyzers.h"
#include "analysis/inspector_analyzers.h"
#include "analysis/ras_analyzers.h"
#include "analysis/topo_analyzers.h"
#include "analysis/trace_arrival_skew.h"
#include "analysis/trace_findings.h"
#include "analysis/trace_host_sync.h"
#include "analysis/trace_idle_causes.h"
#include "analysis/trace_pattern.h"
#include "base/parallel.h"

namespace commdx::analysis {

namespace {

constexpr Source kTrace = Source::kTrace;
constexpr Source kLogs = Source::kLogs;
constexpr Source kBench = Source::kBench;
constexpr Source kTopo = Source::kTopo;
constexpr Source kEnv = Source::kEnv;

// An analyzer of the whole job (logs, bench, topology, environment).
template <std::vector<Finding> (*Fn)(const Job&, const Options&)>
std::vector<Finding> OnJob(const AnalysisInput& in, const Options& options) {
  return Fn(in.job(), options);
}

// A trace analyzer: reads the traces and the facts shared by all of them (nothing without traces).
template <std::vector<Finding> (*Fn)(const TraceSet&, const TraceFacts&, const Options&)>
std::vector<Finding> OnTrace(const AnalysisInput& in, const Options& options) {
  if (in.job().trace.empty()) return {};
  return Fn(in.job().trace, in.trace_facts(), options);
}

// The catalogue's facts on a finding: its source always, title and step where left empty.
void Stamp(Finding& f, Source analyzer_source) {
  const CatalogueEntry* e = FindCatalogueEntry(f.id);
  if (!e) {
    f.source = analyzer_source;
    return;
  }
  f.source = e->source;
  if (f.title.empty()) f.title = e->title;
  if (f.method_step == 0) f.method_step = e->method_step;
}

}  // namespace

const std::vector<Analyzer>& Analyzers() {
  static const std::vector<Analyzer> kAnalyzers = {
      {"trace_pattern", "communication pattern: collectives, sizes, groups", kTrace, &FindPattern},
      {"trace_exposed_comm", "communication no compute hides", kTrace, OnTrace<&FindExposedComm>},
      {"trace_small_collectives", "many small gradient collectives", kTrace,
       OnTrace<&FindSmallCollectives>},
      {"trace_host_sync", "host syncs (.item(), synchronize, D2H copies) that stall the GPU",
       kTrace, OnTrace<&FindHostSync>},
      {"trace_launch_bound", "GPU idle while the CPU issues work", kTrace,
       OnTrace<&FindLaunchBound>},
      {"trace_data_stall", "GPU idle while the CPU loads data", kTrace, OnTrace<&FindDataStall>},
      {"trace_allocator_churn", "GPU idle while the host is in the CUDA/HIP allocator", kTrace,
       OnTrace<&FindAllocatorChurn>},
      {"trace_host_gap", "GPU idle while the host is outside any profiled op", kTrace,
       OnTrace<&FindHostGap>},
      {"trace_queued_idle", "GPU idle with its next work already queued (not the CPU's doing)",
       kTrace, OnTrace<&FindQueuedIdle>},
      {"trace_arrival_skew", "ranks late at collectives, who waits for whom", kTrace,
       &FindArrivalSkew},
      {"trace_slow_bw", "collective bandwidth below what the link allows", kTrace,
       OnTrace<&FindSlowCollectiveBw>},
      {"trace_comm_serialized", "NCCL kernels keep ready compute waiting", kTrace,
       OnTrace<&FindCommSerialized>},
      {"trace_serial_gpus", "one process's GPUs taking turns (model split, no pipeline)", kTrace,
       OnTrace<&FindSerialGpus>},
      {"trace_shared_gpu", "kernels held up by another process's work on the same GPU", kTrace,
       OnTrace<&FindSharedGpu>},
      {"comm_socket_fallback", "NET/Socket where RDMA or P2P/SHM should be", kLogs,
       OnJob<&FindCommSocketFallback>},
      {"comm_p2p_disabled", "GPUs of one node not on P2P", kLogs, OnJob<&FindCommP2pDisabled>},
      {"comm_gdr_disabled", "RDMA without GPUDirect", kLogs, OnJob<&FindCommGdrDisabled>},
      {"comm_few_channels", "channel count and why", kLogs, OnJob<&FindCommFewChannels>},
      {"comm_env_override", "NCCL_* overrides", kLogs, OnJob<&FindCommEnvOverrides>},
      {"comm_version_mismatch", "NCCL versions across ranks", kLogs,
       OnJob<&FindCommVersionMismatch>},
      {"comm_duplicate_gpu", "two ranks on one GPU", kLogs, OnJob<&FindCommDuplicateGpu>},
      {"comm_wrong_interface", "loopback/bridge/tunnel interfaces", kLogs,
       OnJob<&FindCommWrongInterface>},
      {"comm_warnings", "every NCCL WARN explained", kLogs, OnJob<&FindCommWarnings>},
      {"comm_nvls", "NVLS availability", kLogs, OnJob<&FindCommNvls>},
      {"comm_net_plugin", "network stacks across hosts", kLogs, OnJob<&FindCommNetPluginMismatch>},
      {"comm_host_mismatch", "bootstrap family and transport across hosts", kLogs,
       OnJob<&FindCommHostMismatch>},
      {"comm_ofi_provider", "AWS OFI provider", kLogs, OnJob<&FindCommOfiProvider>},
      {"comm_multi_nic", "NICs listed vs used", kLogs, OnJob<&FindCommMultiNic>},
      {"comm_mixed_link", "IB and RoCE in one list", kLogs, OnJob<&FindCommMixedLinkLayers>},
      {"comm_acs", "PCIe ACS in pasted lspci output", kLogs, OnJob<&FindCommAcs>},
      {"comm_unsupported_gpu", "GPU not supported by the NCCL build", kLogs,
       OnJob<&FindCommUnsupportedGpu>},
      {"comm_graph_search", "topology search fell back", kLogs, OnJob<&FindCommGraphSearch>},
      {"comm_init_incomplete", "init started but not completed", kLogs,
       OnJob<&FindCommInitIncomplete>},
      {"hang_calls", "rank behind / desync from NCCL COLL lines", kLogs, OnJob<&FindCallHang>},
      {"calls_small_collectives", "small gradient collectives from NCCL COLL lines", kLogs,
       OnJob<&FindCallSizes>},
      {"hang_flight", "rank behind / desync / stuck collective from Flight Recorder dumps", kLogs,
       OnJob<&FindFlightHang>},
      {"hang_watchdog", "PyTorch watchdog timeouts in job logs", kLogs, OnJob<&FindWatchdogHang>},
      {"hang_debug_checks", "ranks missing or mismatched in TORCH_DISTRIBUTED_DEBUG checks", kLogs,
       OnJob<&FindDebugCheckHang>},
      {"hang_watchdog_stall", "heartbeat monitor: NCCL watchdog stuck, processes terminated", kLogs,
       OnJob<&FindWatchdogStall>},
      {"hang_fr_analysis", "culprit / error type / sequence from Flight Recorder analyzer output",
       kLogs, OnJob<&FindFrAnalysisHang>},
      {"inspector_late_rank", "the rank others wait for, from NCCL Inspector records", kLogs,
       OnJob<&FindInspectorLateRank>},
      {"inspector_bandwidth", "communicators and bus bandwidth per size from NCCL Inspector", kLogs,
       OnJob<&FindInspectorBandwidth>},
      {"inspector_buckets", "bus bandwidth per size range from NCCL Inspector's Prometheus output",
       kLogs, OnJob<&FindInspectorBuckets>},
      {"ras_ranks", "dead, missing and mismatched ranks from NCCL RAS reports", kLogs,
       OnJob<&FindRasRanks>},
      {"ras_consistent_hang", "RAS consistent while the job's watchdog timed out", kLogs,
       OnJob<&FindRasConsistentHang>},
      {"bench_low_busbw", "benchmark plateau busbw vs the link's line rate", kBench,
       &FindBenchLowBusbw},
      {"bench_busbw_drop", "benchmark busbw falling after its peak", kBench, &FindBenchBusbwDrop},
      {"bench_high_latency", "benchmark small-message latency floor", kBench,
       &FindBenchHighLatency},
      {"bench_asymmetric_pair", "P2P pair slower than its peers", kBench,
       OnJob<&FindBenchAsymmetricPair>},
      {"bench_wrong_results", "collective results checked wrong", kBench, &FindBenchWrongResults},
      {"bench_wide_tail", "p99 per size far above the mean (nccl-tests -I)", kBench,
       OnJob<&FindBenchWideTail>},
      {"bench_shared_gpu", "ranks of a live run on one GPU (same CUDA UUID)", kBench,
       OnJob<&FindBenchSharedGpu>},
      {"bench_interleaved_runs", "several processes' nccl-tests runs in one output", kBench,
       OnJob<&FindBenchInterleavedRuns>},
      {"bench_test_failed", "nccl-tests printed a failure and stopped", kBench,
       &FindBenchTestFailed},
      {"bench_no_results", "nccl-tests printed its header and no result (a hang)", kBench,
       &FindBenchNoResults},
      {"replay_verdicts", "the job's collectives replayed alone vs in the job", kBench,
       &FindReplayVerdicts},
      // Before pcie_only: both are unpriced warnings; the split is the more specific cause.
      {"topo_numa_split", "GPUs on several NUMA nodes, pairs across without NVLink", kTopo,
       OnJob<&FindTopoNumaSplit>},
      {"topo_pcie_only", "GPU pairs without NVLink", kTopo, OnJob<&FindTopoPcieOnly>},
      {"topo_nvlink_degraded", "inactive NVLinks, fewer links than peers", kTopo,
       OnJob<&FindTopoNvlinkDegraded>},
      {"topo_pcie_downtrained", "PCIe link below its max width/speed", kTopo,
       OnJob<&FindTopoPcieDowntrained>},
      {"topo_acs", "ACS redirect on bridges between GPUs/NICs", kTopo, OnJob<&FindTopoAcsEnabled>},
      {"topo_nic_far", "GPUs too far from an RDMA NIC for GPUDirect RDMA", kTopo,
       OnJob<&FindTopoNicFar>},
      {"topo_placement", "GPU processes vs NUMA node, shared GPUs, shared cores", kTopo,
       OnJob<&FindTopoPlacement>},
      {"topo_health", "NVLink error counters, clock throttling", kTopo, OnJob<&FindTopoHealth>},
      {"env_limits", "/dev/shm size, locked-memory limit", kEnv, OnJob<&FindEnvLimits>},
      {"env_gpus", "MIG, CUDA_VISIBLE_DEVICES", kEnv, OnJob<&FindEnvGpus>},
      {"env_variables", "NCCL_/TORCH_NCCL_/CUDA_ variables, OMP_NUM_THREADS", kEnv,
       OnJob<&FindEnvVariables>},
      {"env_libraries", "which libnccl.so.2, CUDA runtime vs driver", kEnv,
       OnJob<&FindEnvLibraries>},
      {"env_platform", "nvidia_peermem, IOMMU, container", kEnv, OnJob<&FindEnvPlatform>},
  };
  return kAnalyzers;
}

std::vector<Finding> RunAnalyzers(const AnalysisInput& input, const Options& options,
                                  const std::vector<Source>& sources) {
  std::vector<const Analyzer*> todo;
  for (const auto& a : Analyzers())
    if (sources.empty() || std::find(sources.begin(), sources.end(), a.source) != sources.end())
      todo.push_back(&a);
  // The analyzers read the job and the shared facts only, so they run on the workers; their
  // findings are gathered in registry order, the same for any thread count.
  std::vector<std::vector<Finding>> found(todo.size());
  ParallelFor(todo.size(), input.threads(), [&](size_t i) {
    found[i] = todo[i]->run(input, options);
    for (auto& f : found[i]) Stamp(f, todo[i]->source);
  });
  std::vector<Finding> out;
  for (auto& v : found)
    for (auto& f : v) out.push_back(std::move(f));
  return out;
}

std::vector<Finding> RunAnalyzers(const Job& job, const Options& options,
                                  const std::vector<Source>& sources) {
  AnalysisInput input(job);
  return RunAnalyzers(input, options, sources);
}

}  // namespace commdx::analysis
