#include "analysis/catalogue.h"

namespace commdx::analysis {

namespace {
constexpr Severity kE = Severity::kError;
constexpr Severity kW = Severity::kWarning;
constexpr Severity kI = Severity::kInfo;
}  // namespace

const std::vector<CatalogueEntry>& Catalogue() {
  static const std::vector<CatalogueEntry> kEntries = {
      // trace
      {"trace.exposed_comm", kW, 7,
       "Communication is exposed: the GPU waits for it instead of computing"},
      {"trace.small_collectives", kW, 6, "Many small collectives: latency-bound, poor bandwidth"},
      {"trace.host_sync", kW, 3,
       "Host synchronisation stalls the GPU (.item(), synchronize, D2H copies)"},
      {"trace.launch_bound", kW, 8, "Launch-bound: the GPU idles while the CPU issues work"},
      {"trace.data_stall", kW, 8, "Data stall: the GPU idles while the CPU waits on data loading"},
      {"trace.arrival_skew", kW, 2,
       "Ranks arrive late at collectives: others wait for a straggler"},
      {"trace.slow_collective_bw", kW, 5, "Collectives transfer slower than the link should allow"},
      {"trace.comm_serialized", kW, 7,
       "Communication kernels run one after another, not overlapped"},
      {"trace.pattern", kI, 1, "Communication pattern of the job"},
      // logs
      {"comm.socket_fallback", kE, 4, "NCCL fell back to TCP sockets"},
      {"comm.p2p_disabled", kE, 4, "GPUs on one node do not use P2P (NVLink/PCIe) between them"},
      {"comm.shm_transport", kW, 4, "Intra-node traffic goes through host shared memory (SHM)"},
      {"comm.gdr_disabled", kW, 4, "GPUDirect RDMA is not used on InfiniBand/RoCE"},
      {"comm.few_channels", kW, 4, "NCCL uses few channels: bandwidth is capped"},
      {"comm.env_override", kW, 9, "An NCCL environment override changes NCCL's choices"},
      {"comm.version_mismatch", kE, 9, "Ranks run different NCCL versions"},
      {"comm.duplicate_gpu", kE, 9, "Two ranks use the same GPU"},
      {"comm.nccl_warn", kW, 4, "NCCL printed a warning"},
      {"comm.wrong_interface", kE, 4, "NCCL uses a suspicious network interface across hosts"},
      {"comm.nvls_unavailable", kI, 4, "NVLink SHARP (NVLS) is not available"},
      {"comm.bootstrap_failure", kE, 4, "Ranks cannot reach each other during NCCL bootstrap"},
      {"comm.shm_too_small", kE, 9, "Shared memory (/dev/shm) is too small for NCCL"},
      {"comm.remote_exited", kE, 4, "A peer process exited or crashed"},
      {"comm.cuda_error", kE, 9, "NCCL hit a CUDA or system error"},
      {"comm.ib_error", kE, 4, "InfiniBand/RoCE transport error"},
      {"comm.nvls_failure", kE, 4, "NVLink SHARP (NVLS) setup failed"},
      {"comm.unsupported_gpu", kE, 9, "This NCCL build does not support the GPU"},
      {"comm.nccl_too_old", kW, 9, "A problem fixed in a later NCCL release"},
      {"comm.topology_error", kE, 4, "NCCL could not detect the machine topology"},
      {"comm.net_plugin_mismatch", kE, 9, "Processes use different network stacks (plugins)"},
      {"comm.host_mismatch", kE, 9, "Hosts differ in bootstrap address family or transport"},
      {"comm.efa_not_used", kE, 4, "The AWS OFI plugin does not use EFA"},
      {"comm.multi_nic_underused", kW, 10, "Several NICs are listed but one carries the traffic"},
      {"comm.mixed_link_layers", kW, 4, "InfiniBand and RoCE ports are mixed in one NIC list"},
      {"comm.init_incomplete", kI, 4,
       "A communicator started init on more ranks than completed it"},
      // live
      {"topo.pcie_only", kW, 4, "GPUs are connected by PCIe only (no NVLink)"},
      {"topo.nvlink_degraded", kE, 4, "NVLinks are down or fewer than on peer GPUs"},
      {"topo.pcie_downtrained", kW, 4, "A PCIe link runs below its maximum speed or width"},
      {"topo.cross_numa_rank", kW, 8, "A rank runs on CPUs far from its GPU (other NUMA node)"},
      {"topo.acs_enabled", kW, 4,
       "PCIe ACS is enabled on a bridge between GPUs (P2P goes through the CPU)"},
      {"topo.gpu_shared", kW, 8, "Several processes hold one GPU"},
      {"topo.cpu_overlap", kW, 8, "GPU processes are pinned to overlapping CPUs"},
      {"env.shm_small", kE, 9, "/dev/shm is small for NCCL"},
      {"env.memlock", kW, 9, "Locked-memory limit is low for RDMA"},
      {"env.mig", kW, 9, "MIG mode is enabled"},
      {"env.omp_oversubscribed", kW, 9, "OMP_NUM_THREADS x local ranks exceeds the cores"},
      {"env.visible_devices", kW, 9, "CUDA_VISIBLE_DEVICES does not match the GPUs present"},
      {"env.nccl_lib", kI, 9, "Which NCCL library would be loaded"},
      {"env.nccl_override", kW, 9,
       "An NCCL/PyTorch/CUDA variable in the environment hurts or overrides communication"},
      {"env.cuda_driver_old", kE, 9, "The CUDA runtime is newer than the driver supports"},
      {"env.peermem_missing", kW, 9, "InfiniBand without nvidia_peermem: no GPUDirect RDMA"},
      {"env.iommu", kW, 9, "IOMMU translation on the P2P/RDMA path"},
      {"env.container", kI, 9, "Running in a container"},
      {"health.nvlink_errors", kW, 4, "NVLink error counters are non-zero"},
      {"health.throttled", kW, 4, "GPU clocks are throttled"},
      // bench
      {"bench.low_busbw", kE, 5,
       "Measured bus bandwidth is well below what the topology should give"},
      {"bench.high_latency", kW, 5, "Small-message latency is high"},
      {"bench.asymmetric_pair", kW, 5, "One GPU pair is slower than its peers"},
      {"bench.wrong_results", kE, 5, "A benchmarked collective produced wrong values"},
  };
  return kEntries;
}

const CatalogueEntry* FindCatalogueEntry(std::string_view id) {
  for (const auto& e : Catalogue())
    if (id == e.id) return &e;
  return nullptr;
}

}  // namespace commdx::analysis
