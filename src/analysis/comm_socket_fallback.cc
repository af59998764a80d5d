// comm.socket_fallback: NCCL moves data over TCP sockets (NET/Socket) where RDMA or, inside a
// node, P2P/SHM should carry it. Evidence, strongest first: "via NET/Socket" connection lines
// (between GPUs of one node: P2P and SHM are both off); "Using network Socket" on a job that
// spans hosts; an RDMA device that exists but cannot be used (ibv_open_device WARN,
// NCCL_IB_DISABLE=1); only a NET/Socket interface list where the node count is unknown.
#include "analysis/comm_analyzers.h"
#include "analysis/comm_common.h"

namespace commdx::analysis {

namespace {

bool IbTriedAndFailed(const NcclSetup& s, std::vector<const NcclLineRef*>& refs) {
  bool failed = false;
  for (const auto& w : s.warnings) {
    if (w.text.find("ibv_open_device") != std::string::npos ||
        w.text.find("Unable to open device") != std::string::npos ||
        w.text.find("ibv_get_device_list") != std::string::npos) {
      refs.push_back(&w.ref);
      failed = true;
    }
  }
  for (const auto& o : s.overrides)
    if (o.name == "NCCL_IB_DISABLE" && o.value != "0") refs.push_back(&o.ref), failed = true;
  return failed;
}

bool OtherNetworkInUse(const NcclSetup& s) {
  for (const auto& n : s.nets) {
    for (const auto& nic : n.nics)
      if (nic.role == "ib") return true;  // RDMA devices were found
    if (!n.network.empty() && n.network != "Socket") return true;
    if (!n.ofi_provider.empty()) return true;
    if (!n.plugin.empty() && n.plugin != "internal") return true;
  }
  return false;
}

}  // namespace

std::vector<Finding> FindCommSocketFallback(const Job& job, const Options&) {
  const NcclSetup& s = job.nccl;
  std::vector<const NcclLineRef*> conn_refs, intra_refs, net_refs, ib_refs, list_refs;
  for (const auto& c : s.communicators)
    for (const auto& x : c.connections)
      if (x.kind == TransportKind::kNetSocket) {
        conn_refs.push_back(&x.ref);
        if (SameNode(c, x.from_rank, x.to_rank)) intra_refs.push_back(&x.ref);
      }
  bool network_socket = false;
  for (const auto& n : s.nets) {
    if (n.network == "Socket") network_socket = true, net_refs.push_back(&n.network_ref);
    for (const auto& r : n.nic_refs)
      if (r.line.find("NET/Socket") != std::string::npos || r.line.find("NET : Using") != std::string::npos)
        list_refs.push_back(&r);
  }
  bool ib_failed = IbTriedAndFailed(s, ib_refs);
  std::optional<bool> spans = SpansHosts(s);
  Finding f;
  f.id = "comm.socket_fallback";
  f.severity = Severity::kError;
  f.method_step = 4;
  f.fix =
      "Give NCCL its fast transport back: inside a node remove NCCL_P2P_DISABLE / "
      "NCCL_SHM_DISABLE; across nodes make the RDMA NICs usable (in containers pass "
      "--device=/dev/infiniband, --cap-add=IPC_LOCK and a high memlock limit, or --privileged "
      "--net=host; install rdma-core and the NCCL net plugin for EFA/IBext), unset "
      "NCCL_IB_DISABLE, and check `ibv_devinfo` shows the ports ACTIVE.";
  if (!intra_refs.empty()) {
    f.title = "GPUs of one node talk over TCP sockets (P2P and shared memory are both off)";
    f.detail = "Connections between ranks on the same node use NET/Socket: every byte crosses the "
               "kernel's TCP stack through the NIC or loopback, typically 10-100x slower than "
               "NVLink/PCIe P2P. (NCCL then even counts each GPU as its own node.)";
    AddEvidence(f, intra_refs);
    for (const auto& o : s.overrides)
      if ((o.name == "NCCL_P2P_DISABLE" || o.name == "NCCL_SHM_DISABLE") && o.value != "0")
        f.refs.push_back(Evidence(o.ref));
  } else if (!conn_refs.empty()) {
    f.title = "Inter-node traffic goes over TCP sockets (NET/Socket), not RDMA";
    f.detail = "Connections between nodes use NET/Socket. Sockets reach a fraction of what "
               "InfiniBand/RoCE/EFA give (a few GB/s per node vs 25-50 GB/s per NIC).";
    AddEvidence(f, conn_refs);
    AddEvidence(f, ib_refs, 3);
  } else if (network_socket && (spans.value_or(false) || ib_failed)) {
    f.title = ib_failed ? "RDMA is present but unusable: NCCL fell back to TCP sockets"
                        : "NCCL selected TCP sockets as its network for a multi-node job";
    f.detail = ib_failed
                   ? "NCCL tried InfiniBand/RoCE and failed (or it was disabled by environment), "
                     "then chose 'Using network Socket': inter-node traffic runs over TCP."
                   : "'Using network Socket' with ranks on several hosts: inter-node traffic "
                     "runs over TCP.";
    AddEvidence(f, ib_refs, 4);
    AddEvidence(f, net_refs, 2);
  } else if (!list_refs.empty() && !spans.has_value() && !OtherNetworkInUse(s)) {
    f.severity = Severity::kWarning;
    f.confidence = 0.5;
    f.title = "NCCL's network transport is TCP sockets";
    f.detail = "Only a NET/Socket interface list is logged (no RDMA device, no net plugin). If "
               "this job spans nodes, inter-node traffic runs over TCP. The log does not show "
               "how many nodes there are (NCCL_DEBUG_SUBSYS=INIT,NET on all ranks would).";
    AddEvidence(f, list_refs, 2);
  } else {
    return {};
  }
  f.metrics.push_back({"socket_connections", static_cast<double>(conn_refs.size()), "count"});
  return {f};
}

}  // namespace commdx::analysis
