// comm.gdr_disabled: InfiniBand/RoCE is used without GPUDirect RDMA, so every message is staged
// through host memory. Evidence: NET/IB connection lines without "/GDRDMA", "GPU Direct RDMA
// Disabled for HCA" on every HCA, or "use ring PXN 0 GDR 0" with an IB network.
#include "analysis/catalogue.h"
#include "analysis/comm_analyzers.h"
#include "analysis/comm_common.h"

namespace commdx::analysis {

namespace {

bool IsRdmaNet(const NcclConnection& x) {
  if (x.kind == TransportKind::kNetIB) return true;
  // Plugins that do RDMA: NET/IBext*, NET/AWS Libfabric (EFA), NET/GDR...
  return x.kind == TransportKind::kNetOther && (x.transport.find("IB") != std::string::npos ||
                                                x.transport.find("Libfabric") != std::string::npos);
}

}  // namespace

std::vector<Finding> FindCommGdrDisabled(const Job& job, const Options&) {
  const NcclSetup& s = job.nccl;
  std::vector<const NcclLineRef*> no_gdr, why;
  size_t rdma_conns = 0, gdr_conns = 0;
  for (const auto& c : s.communicators)
    for (const auto& x : c.connections)
      if (IsRdmaNet(x)) {
        ++rdma_conns;
        if (x.gdr)
          ++gdr_conns;
        else
          no_gdr.push_back(&x.ref);
      }
  size_t hca_enabled = 0, hca_disabled = 0;
  std::string reason;
  bool ib_net = false;
  for (const auto& n : s.nets) {
    if (n.network == "IB" || n.network.rfind("IBext", 0) == 0) ib_net = true;
    for (const auto& g : n.gdr) {
      if (g.net == "Socket") continue;  // sockets never do GDR; NCCL says so for every HCA
      if (g.enabled) {
        ++hca_enabled;
      } else {
        ++hca_disabled;
        why.push_back(&g.ref);
        if (reason.empty()) reason = g.reason;
      }
    }
    if (ib_net && n.ring_gdr == false) why.push_back(&n.network_ref);
  }
  bool by_conns = rdma_conns > 0 && gdr_conns == 0;
  bool by_hca = rdma_conns == 0 && hca_disabled > 0 && hca_enabled == 0;
  if (!by_conns && !by_hca) return {};
  Finding f = NewFinding("comm.gdr_disabled");
  f.severity = Severity::kWarning;
  f.method_step = 4;
  f.title = "GPUDirect RDMA is not used on the RDMA network: data is staged through host memory";
  f.detail = by_conns ? "None of the RDMA network connections carries the /GDRDMA suffix: the NIC "
                        "reads and writes host memory and the GPU copies in and out, which "
                        "lowers inter-node bandwidth (33 GB/s instead of 93 GB/s in one "
                        "reported 16-GPU case) and costs CPU memory bandwidth."
                      : "NCCL reports GPU Direct RDMA disabled on every HCA it found.";
  if (reason.find("no module") != std::string::npos)
    f.detail += " NCCL says: no peer-memory module.";
  else if (reason.find("distance") != std::string::npos)
    f.detail += " NCCL says the GPU-NIC path is too long " + reason + " for NCCL_NET_GDR_LEVEL.";
  const NcclEnvOverride* lvl = FindOverride(s, "NCCL_NET_GDR_LEVEL");
  if (lvl) why.push_back(&lvl->ref);
  f.fix =
      "Load the peer-memory module (`modprobe nvidia-peermem`) or use DMA-BUF (NCCL >= 2.13, "
      "Linux >= 5.12, open GPU kernel modules); check that ACS/IOMMU does not block PCIe "
      "peer traffic and that GPU and NIC share a PCIe switch; unset NCCL_NET_GDR_LEVEL / "
      "NCCL_NET_GDR_READ=0 if set. NCCL 2.22.3 and older look only for the old nv_peer_mem "
      "module and turn GPUDirect RDMA off when only its successor nvidia-peermem is loaded (as "
      "after a DGX OS 25.01 upgrade): with such a version, upgrade NCCL (2.23.4 or later).";
  std::string version = JobVersion(s);
  if (!version.empty() && CompareVersions(version, "2.13") >= 0 &&
      CompareVersions(version, "2.23") < 0)
    f.detail += " This NCCL (" + version +
                ") looks only for the nv_peer_mem module: if nvidia-peermem is what is loaded, "
                "NCCL turns GPUDirect RDMA off anyway.";
  AddEvidence(f, no_gdr, 4);
  AddEvidence(f, why, 3);
  if (by_conns)
    f.metrics.push_back(
        {"rdma_connections_without_gdr", static_cast<double>(no_gdr.size()), Unit::kCount});
  else
    f.metrics.push_back({"hcas_without_gdr", static_cast<double>(hca_disabled), Unit::kCount});
  std::vector<Finding> out{f};
  // Before 2.13 NCCL could only do GDR through the peer-memory module; DMA-BUF came later.
  if (!version.empty() && CompareVersions(version, "2.13") < 0) {
    Finding old = NewFinding("comm.nccl_too_old");
    old.severity = Severity::kWarning;
    old.method_step = 9;
    old.title = "NCCL " + version + " can only use GPUDirect RDMA through nvidia-peermem";
    old.detail =
        "NCCL 2.13 added DMA-BUF, which gives GPUDirect RDMA without the peer-memory "
        "kernel module on recent kernels and drivers.";
    old.fix = "Upgrade NCCL (>= 2.13), or install and load nvidia-peermem.";
    old.refs.push_back(f.refs.empty() ? EvidenceRef{} : f.refs.front());
    out.push_back(std::move(old));
  }
  return out;
}

}  // namespace commdx::analysis
