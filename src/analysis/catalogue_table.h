// The catalogue of findings commdx can raise, as one compile-time table: every finding id with
// its source, role, default severity, method step (docs/method.md) and title, kept here and
// nowhere else. Ids are stable once released. An analyzer names an id through FindingId
// (catalogue.h), which looks it up when the program is compiled: an id missing from this table
// does not build. docs/findings/*.md describe every id (a test checks it).
#pragma once

#include "model/finding.h"

namespace commdx::analysis {

// What a finding is to the root-cause search (diagnose/root_cause.cc).
enum class Role {
  kCause,    // can be the root cause
  kSymptom,  // an effect (slow, exposed, skewed): named only when no cause explains it
  kContext,  // describes the job (its communication pattern); never the root cause
};

struct CatalogueEntry {
  const char* id;
  Source source;  // the input that shows it
  Role role;
  Severity default_severity;  // what the analyzer starts from; evidence may raise or lower it
  int method_step;            // docs/method.md step
  const char* title;          // what it means, one line
};

namespace catalogue_detail {
inline constexpr Severity kE = Severity::kError;
inline constexpr Severity kW = Severity::kWarning;
inline constexpr Severity kI = Severity::kInfo;
inline constexpr Source kTrace = Source::kTrace;
inline constexpr Source kLogs = Source::kLogs;
inline constexpr Source kBench = Source::kBench;
inline constexpr Source kTopo = Source::kTopo;
inline constexpr Source kEnv = Source::kEnv;
inline constexpr Role kCause = Role::kCause;
inline constexpr Role kSymptom = Role::kSymptom;
inline constexpr Role kContext = Role::kContext;

inline constexpr CatalogueEntry kEntries[] = {
    // trace
    {"trace.exposed_comm", kTrace, kSymptom, kW, 7,
     "Communication is exposed: the GPU waits for it instead of computing"},
    {"trace.small_collectives", kTrace, kCause, kW, 6,
     "Many small collectives: latency-bound, poor bandwidth"},
    {"trace.host_sync", kTrace, kCause, kW, 3,
     "Host synchronisation stalls the GPU (.item(), synchronize, D2H copies)"},
    {"trace.launch_bound", kTrace, kSymptom, kW, 8,
     "Launch-bound: the GPU idles while the CPU issues work"},
    {"trace.data_stall", kTrace, kCause, kW, 8,
     "Data stall: the GPU idles while the CPU waits on data loading"},
    {"trace.allocator_churn", kTrace, kCause, kW, 8,
     "Allocator churn: the GPU idles while the host is in cudaMalloc/cudaFree"},
    {"trace.host_gap", kTrace, kCause, kW, 8,
     "Host gap: the GPU idles while the host runs code outside any profiled op"},
    {"trace.queued_idle", kTrace, kSymptom, kW, 8,
     "Queued idle: the GPU waits with work queued, for something the trace does not record"},
    {"trace.arrival_skew", kTrace, kSymptom, kW, 2,
     "Ranks arrive late at collectives: others wait for a straggler"},
    {"trace.slow_collective_bw", kTrace, kSymptom, kW, 5,
     "Collectives transfer slower than the link should allow"},
    {"trace.comm_serialized", kTrace, kCause, kW, 7,
     "Communication kernels run one after another, not overlapped"},
    {"trace.serial_gpus", kTrace, kCause, kW, 8,
     "One process's GPUs run one at a time: each idles while the others work"},
    {"trace.shared_gpu", kTrace, kCause, kW, 8,
     "The GPU is shared with another process: kernels are held up by its time slices"},
    {"trace.pattern", kTrace, kContext, kI, 1, "Communication pattern of the job"},
    // logs
    {"comm.socket_fallback", kLogs, kCause, kE, 4, "NCCL fell back to TCP sockets"},
    {"comm.p2p_disabled", kLogs, kCause, kE, 4,
     "GPUs on one node do not use P2P (NVLink/PCIe) between them"},
    {"comm.shm_transport", kLogs, kCause, kW, 4,
     "Intra-node traffic goes through host shared memory (SHM)"},
    {"comm.gdr_disabled", kLogs, kCause, kW, 4, "GPUDirect RDMA is not used on InfiniBand/RoCE"},
    {"comm.few_channels", kLogs, kCause, kW, 4, "NCCL uses few channels: bandwidth is capped"},
    {"comm.env_override", kLogs, kCause, kW, 9,
     "An NCCL environment override changes NCCL's choices"},
    {"comm.version_mismatch", kLogs, kCause, kE, 9, "Ranks run different NCCL versions"},
    {"comm.duplicate_gpu", kLogs, kCause, kE, 9, "Two ranks use the same GPU"},
    {"comm.nccl_warn", kLogs, kSymptom, kW, 4, "NCCL printed a warning"},
    {"comm.wrong_interface", kLogs, kCause, kE, 4,
     "NCCL uses a suspicious network interface across hosts"},
    {"comm.nvls_unavailable", kLogs, kCause, kI, 4, "NVLink SHARP (NVLS) is not available"},
    {"comm.bootstrap_failure", kLogs, kCause, kE, 4,
     "Ranks cannot reach each other during NCCL bootstrap"},
    {"comm.shm_too_small", kLogs, kCause, kE, 9, "Shared memory (/dev/shm) is too small for NCCL"},
    {"comm.remote_exited", kLogs, kSymptom, kE, 4, "A peer process exited or crashed"},
    {"comm.cuda_error", kLogs, kCause, kE, 9, "NCCL hit a CUDA or system error"},
    {"comm.ib_error", kLogs, kCause, kE, 4, "InfiniBand/RoCE transport error"},
    {"comm.nvls_failure", kLogs, kCause, kE, 4, "NVLink SHARP (NVLS) setup failed"},
    {"comm.unsupported_gpu", kLogs, kCause, kE, 9, "This NCCL build does not support the GPU"},
    {"comm.nccl_too_old", kLogs, kCause, kW, 9, "A problem fixed in a later NCCL release"},
    {"comm.topology_error", kLogs, kCause, kE, 4, "NCCL could not detect the machine topology"},
    {"comm.net_plugin_mismatch", kLogs, kCause, kE, 9,
     "Processes use different network stacks (plugins)"},
    {"comm.host_mismatch", kLogs, kCause, kE, 9,
     "Hosts differ in bootstrap address family or transport"},
    {"comm.efa_not_used", kLogs, kCause, kE, 4, "The AWS OFI plugin does not use EFA"},
    {"comm.multi_nic_underused", kLogs, kCause, kW, 10,
     "Several NICs are listed but one carries the traffic"},
    {"comm.mixed_link_layers", kLogs, kCause, kW, 4,
     "InfiniBand and RoCE ports are mixed in one NIC list"},
    {"comm.init_incomplete", kLogs, kCause, kI, 4,
     "A communicator started init on more ranks than completed it"},
    // hangs (NCCL COLL lines, Flight Recorder dumps, job logs)
    {"hang.watchdog_timeout", kLogs, kSymptom, kE, 2,
     "A collective timed out: PyTorch's watchdog aborted the job"},
    {"hang.rank_behind", kLogs, kCause, kW, 2,
     "One rank stopped issuing collectives before the others"},
    {"comm.small_collectives", kLogs, kCause, kW, 6,
     "Many small gradient collectives in the COLL lines: latency-bound"},
    {"hang.desync", kLogs, kCause, kE, 2,
     "Ranks issued different collectives or sizes at the same sequence number"},
    {"hang.stuck_collective", kLogs, kSymptom, kW, 2,
     "Every rank entered the same collective and none finished it"},
    {"hang.watchdog_stuck", kLogs, kSymptom, kE, 2,
     "The NCCL watchdog got stuck: PyTorch's heartbeat monitor killed the job"},
    // NCCL Inspector profiler plugin records
    {"inspector.late_rank", kLogs, kSymptom, kW, 2,
     "One rank reaches collectives late: the others wait for it (NCCL Inspector)"},
    {"inspector.slow_collective_bw", kLogs, kSymptom, kW, 5,
     "Collectives transfer slower than the link should allow (NCCL Inspector)"},
    {"inspector.comm_summary", kLogs, kContext, kI, 1,
     "A communicator as NCCL Inspector saw it: kind, collectives, bus bandwidth per size"},
    // NCCL RAS (ncclras) reports
    {"ras.dead_rank", kLogs, kCause, kE, 2,
     "NCCL's RAS considers a rank's process dead: its communicators cannot proceed"},
    {"ras.missing_rank", kLogs, kCause, kW, 2,
     "A rank does not answer NCCL's RAS: its communicator data is missing"},
    {"ras.consistent_hang", kLogs, kCause, kW, 2,
     "Every rank launched the collective that timed out (RAS consistent)"},
    {"ras.mismatch", kLogs, kSymptom, kW, 2,
     "Ranks of one communicator differ in NCCL's RAS report (status or collective counts)"},
    // live
    {"topo.pcie_only", kTopo, kCause, kW, 4, "GPUs are connected by PCIe only (no NVLink)"},
    {"topo.nvlink_degraded", kTopo, kCause, kE, 4, "NVLinks are down or fewer than on peer GPUs"},
    {"topo.numa_split", kTopo, kCause, kW, 4,
     "GPUs sit on several NUMA nodes: pairs across them cross the CPU sockets' link"},
    {"topo.pcie_downtrained", kTopo, kCause, kW, 4,
     "A PCIe link runs below its maximum speed or width"},
    {"topo.nic_far", kTopo, kCause, kW, 4,
     "A GPU's nearest RDMA NIC is too far for GPUDirect RDMA"},
    {"topo.cross_numa_rank", kTopo, kCause, kW, 8,
     "A rank runs on CPUs far from its GPU (other NUMA node)"},
    {"topo.acs_enabled", kTopo, kCause, kW, 4,
     "PCIe ACS is enabled on a bridge between GPUs (P2P goes through the CPU)"},
    {"topo.gpu_shared", kTopo, kCause, kW, 8, "Several processes hold one GPU"},
    {"topo.cpu_overlap", kTopo, kCause, kW, 8, "GPU processes are pinned to overlapping CPUs"},
    {"env.shm_small", kEnv, kCause, kE, 9, "/dev/shm is small for NCCL"},
    {"env.memlock", kEnv, kCause, kW, 9, "Locked-memory limit is low for RDMA"},
    {"env.mig", kEnv, kCause, kW, 9, "MIG mode is enabled"},
    {"env.omp_oversubscribed", kEnv, kCause, kW, 9,
     "OMP_NUM_THREADS x local ranks exceeds the cores"},
    {"env.visible_devices", kEnv, kCause, kW, 9,
     "CUDA_VISIBLE_DEVICES does not match the GPUs present"},
    {"env.nccl_lib", kEnv, kCause, kI, 9, "Which NCCL library would be loaded"},
    {"env.nccl_override", kEnv, kCause, kW, 9,
     "An NCCL/PyTorch/CUDA variable in the environment hurts or overrides communication"},
    {"env.cuda_driver_old", kEnv, kCause, kE, 9,
     "The CUDA runtime is newer than the driver supports"},
    {"env.peermem_missing", kEnv, kCause, kW, 9,
     "InfiniBand without nvidia_peermem: no GPUDirect RDMA"},
    {"env.iommu", kEnv, kCause, kW, 9, "IOMMU translation on the P2P/RDMA path"},
    {"env.container", kEnv, kCause, kI, 9, "Running in a container"},
    {"health.nvlink_errors", kTopo, kCause, kW, 4, "NVLink error counters are non-zero"},
    {"health.throttled", kTopo, kCause, kW, 4, "GPU clocks are throttled"},
    // bench
    {"bench.low_busbw", kBench, kSymptom, kE, 5,
     "Measured bus bandwidth is well below what the topology should give"},
    {"bench.busbw_drop", kBench, kSymptom, kW, 5,
     "Bus bandwidth falls at the largest sizes instead of levelling off"},
    {"bench.high_latency", kBench, kCause, kW, 5, "Small-message latency is high"},
    {"bench.asymmetric_pair", kBench, kCause, kW, 5, "One GPU pair is slower than its peers"},
    {"bench.wrong_results", kBench, kCause, kE, 5,
     "A benchmarked collective produced wrong values"},
    {"bench.wide_tail", kBench, kSymptom, kW, 5,
     "The 99th percentile at a fixed size is far above the mean: a disturbed link or node"},
    {"bench.shared_gpu", kBench, kCause, kE, 5, "Two ranks of the benchmark run on one GPU"},
    {"bench.interleaved_runs", kBench, kCause, kE, 5,
     "Each process ran its own nccl-tests run: nothing crossed between the processes"},
    {"bench.test_failed", kBench, kCause, kE, 5, "nccl-tests failed (Test NCCL/CUDA failure)"},
    {"bench.no_results", kBench, kSymptom, kE, 5,
     "nccl-tests printed its header and no result: it hung in its first collective"},
    // `commdx bench replay`: the job's own collectives run again alone
    {"replay.slow_in_job", kBench, kSymptom, kW, 11,
     "The job's collectives are fast replayed alone but slow in the job: the training loop"},
    {"replay.slow_alone", kBench, kSymptom, kW, 11,
     "The job's collectives are slow even replayed alone: NCCL settings, transport or links"},
    {"replay.as_alone", kBench, kContext, kI, 11,
     "The job's collectives run as fast in the job as replayed alone"},
};

}  // namespace catalogue_detail

inline constexpr const auto& kCatalogue = catalogue_detail::kEntries;

}  // namespace commdx::analysis
