// env.peermem_missing, env.iommu, env.container: what the platform does to GPUDirect and P2P.
//
// GPUDirect RDMA (NIC reads/writes GPU memory) needs the nvidia_peermem module (nv_peer_mem
// with older MOFED), or DMA-BUF (NCCL 2.19+ with the open kernel module and Linux 5.12+). An
// IOMMU in translated (DMA) mode sends P2P and RDMA through address translation; NCCL's
// troubleshooting guide recommends iommu=pt (passthrough) on bare metal.
#include "analysis/catalogue.h"
#include "analysis/env_analyzers.h"
#include "analysis/topo_common.h"
#include "base/text.h"

namespace commdx::analysis {

std::vector<Finding> FindEnvPlatform(const Job& job, const Options&) {
  const EnvSnapshot& e = job.env;
  if (!e.captured || !e.platform_checked) return {};  // a process dump does not look at these
  std::vector<Finding> out;
  bool gpus = !job.topo.gpus.empty() || !e.driver_version.empty();
  if (e.ib_present && gpus && e.peermem_loaded == false) {
    Finding f = NewFinding("env.peermem_missing");
    f.severity = Severity::kWarning;
    f.confidence = 0.7;
    f.title = "InfiniBand is present but nvidia_peermem is not loaded";
    std::string devs;
    for (const auto& d : e.ib_devices) devs += (devs.empty() ? "" : ", ") + d;
    f.detail = "RDMA devices: " + devs +
               ". Without nvidia_peermem NCCL can use GPUDirect RDMA "
               "only through DMA-BUF (NCCL 2.19+, open kernel module, Linux 5.12+); otherwise "
               "inter-node traffic is staged through host memory (NCCL log: no 'GDRDMA').";
    f.refs.push_back(Ref({}, "/proc/modules: no nvidia_peermem / nv_peer_mem"));
    f.fix =
        "`modprobe nvidia_peermem` (administrator; load at boot), then check that NCCL logs "
        "'via NET/IB/0/GDRDMA'.";
    out.push_back(std::move(f));
  }
  if (e.iommu_enabled.value_or(false) && gpus && e.iommu_mode != "identity" &&
      !Contains(e.kernel_iommu_args, "iommu=pt")) {
    Finding f = NewFinding("env.iommu");
    f.severity = Severity::kWarning;
    f.confidence = e.iommu_mode.empty() ? 0.5 : 0.8;
    f.title =
        "IOMMU translates device addresses" +
        (e.iommu_mode.empty() ? std::string() : " (GPU IOMMU group type " + e.iommu_mode + ")");
    f.detail =
        "With the IOMMU in DMA-translation mode, PCIe P2P between GPUs and GPUDirect RDMA "
        "go through address translation: they slow down, or P2P is reported unsupported. "
        "Kernel command line: " +
        (e.kernel_iommu_args.empty() ? std::string("(no iommu options)") : e.kernel_iommu_args) +
        ".";
    f.refs.push_back(Ref({}, "/sys/class/iommu is populated; GPU iommu_group/type = " +
                                 (e.iommu_mode.empty() ? std::string("unknown") : e.iommu_mode)));
    f.fix =
        "On bare metal boot with iommu=pt (intel_iommu=on iommu=pt / amd_iommu=on iommu=pt) or "
        "disable the IOMMU; in VMs it is needed for passthrough.";
    out.push_back(std::move(f));
  }
  if (e.in_container) {
    Finding f = NewFinding("env.container");
    f.severity = Severity::kInfo;
    f.title = "Running in a container";  // a snapshot may say so without naming a sign
    if (!e.container_signs.empty()) f.title += " (" + e.container_signs.front().what + ")";
    f.detail =
        "Containers limit /dev/shm, locked memory and CPU sets, and hide other processes' "
        "PIDs; GPU processes started outside are not visible for the placement audit. "
        "Multi-process jobs need a shared IPC namespace (--ipc=host) for NCCL's P2P/SHM "
        "transports across containers.";
    for (const auto& s : e.container_signs) f.refs.push_back(Ref({}, s.what + ": " + s.evidence));
    f.fix =
        "Run with --ipc=host (or --shm-size=16g), --ulimit memlock=-1, and --cpuset-cpus matching "
        "each GPU's NUMA node when pinning.";
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace commdx::analysis
