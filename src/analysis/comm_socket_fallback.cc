// comm.socket_fallback: NCCL moves data over TCP sockets (NET/Socket) where RDMA or, inside a
// node, P2P/SHM should carry it. Evidence, strongest first: "via NET/Socket" connection lines
// (between GPUs of one node: P2P and SHM are both off); "Using network Socket" on a job that
// spans hosts; only a NET/Socket interface list where the node count is unknown, unless every
// communicator's ranks are joined by P2P/SHM alone (one node: the network carries nothing).
//
// Why sockets were chosen decides the severity. An RDMA device that exists but cannot be used
// (ibv_open_device WARN, IB NICs listed and still Socket) is a fallback: an error. Sockets chosen
// by configuration (NCCL_IB_DISABLE=1, NCCL_NET=Socket) or by a platform without RDMA ("NET/IB :
// No device found.") are how that cluster works: TCP bounds its inter-node bandwidth, a warning,
// and a healthy socket-only cluster gets no error. A log that says neither gets a warning too:
// the absence of an RDMA line is not evidence of a failed one.
#include "analysis/catalogue.h"
#include "analysis/comm_analyzers.h"
#include "analysis/comm_common.h"

namespace commdx::analysis {

namespace {

// Why NCCL took sockets, as far as the log tells.
struct SocketReason {
  std::vector<const NcclLineRef*> rdma_failed;  // RDMA hardware there but unusable
  std::vector<const NcclLineRef*> configured;   // NCCL_IB_DISABLE=1, NCCL_NET=Socket
  std::vector<const NcclLineRef*> no_rdma;      // "NET/IB : No device found."
};

bool Contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

SocketReason WhySockets(const NcclSetup& s) {
  SocketReason r;
  for (const auto& w : s.warnings)
    if (Contains(w.text, "ibv_open_device") || Contains(w.text, "Unable to open device") ||
        Contains(w.text, "ibv_get_device_list"))
      r.rdma_failed.push_back(&w.ref);
  for (const auto& o : s.overrides) {
    if (o.name == "NCCL_IB_DISABLE" && o.value != "0") r.configured.push_back(&o.ref);
    if (o.name == "NCCL_NET" && (o.value == "Socket" || o.value == "socket"))
      r.configured.push_back(&o.ref);
  }
  for (const auto& n : s.nets) {
    if (n.ib_no_device) r.no_rdma.push_back(&n.ib_no_device_ref);
    bool ib_listed = false;
    for (const auto& nic : n.nics) ib_listed = ib_listed || nic.role == "ib";
    if (ib_listed && n.network == "Socket") {
      r.rdma_failed.push_back(&n.network_ref);
      for (const auto& ref : n.nic_refs) r.rdma_failed.push_back(&ref);
    }
  }
  return r;
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

// Inter-node sockets: error for a fallback from RDMA, warning when chosen or the only option.
void DescribeInterNode(Finding& f, const SocketReason& why) {
  if (!why.rdma_failed.empty()) {
    f.title = "RDMA is present but unusable: NCCL fell back to TCP sockets between nodes";
    f.detail =
        "NCCL found InfiniBand/RoCE but could not use it (device open failed, or IB NICs "
        "listed and still 'Using network Socket'): inter-node traffic runs over TCP.";
    AddEvidence(f, why.rdma_failed, 4);
    return;
  }
  f.severity = Severity::kWarning;
  if (!why.configured.empty()) {
    f.title = "Sockets chosen by configuration carry the inter-node traffic";
    f.detail =
        "RDMA is switched off by environment (NCCL_IB_DISABLE / NCCL_NET=Socket), so "
        "NCCL uses TCP between nodes. That bounds inter-node bandwidth to what the "
        "sockets give (a few GB/s per node vs 25-50 GB/s per RDMA NIC).";
    f.fix = "If the nodes have RDMA NICs, unset NCCL_IB_DISABLE / NCCL_NET=Socket.";
    AddEvidence(f, why.configured, 3);
  } else if (!why.no_rdma.empty()) {
    f.title = "No RDMA device on these hosts: TCP sockets bound inter-node bandwidth";
    f.platform_bound = true;
    f.detail =
        "NCCL found no InfiniBand/RoCE device ('NET/IB : No device found.') and uses TCP "
        "between nodes, as a cluster without RDMA does. Not a fault; inter-node "
        "bandwidth is what the Ethernet NICs give.";
    f.fix =
        "Nothing to fix if the hosts have no RDMA NICs. If they do (or run in containers), "
        "expose them (--device=/dev/infiniband, rdma-core, the net plugin for EFA/IBext).";
    AddEvidence(f, why.no_rdma, 2);
  } else {
    f.confidence = 0.6;
    f.title = "Inter-node traffic goes over TCP sockets (NET/Socket)";
    f.detail =
        "The log does not say why: no RDMA device is listed and none failed. If the nodes "
        "have RDMA NICs, NCCL did not see them; if not, TCP is what bounds inter-node "
        "bandwidth.";
  }
}

}  // namespace

std::vector<Finding> FindCommSocketFallback(const Job& job, const Options&) {
  const NcclSetup& s = job.nccl;
  std::vector<const NcclLineRef*> conn_refs, intra_refs, net_refs, list_refs;
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
      if (Contains(r.line, "NET/Socket") || Contains(r.line, "NET : Using"))
        list_refs.push_back(&r);
  }
  SocketReason why = WhySockets(s);
  std::optional<bool> spans = SpansHosts(s);
  Finding f = NewFinding("comm.socket_fallback");
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
    f.detail =
        "Connections between ranks on the same node use NET/Socket: every byte crosses the "
        "kernel's TCP stack through the NIC or loopback, typically 10-100x slower than "
        "NVLink/PCIe P2P. (NCCL then even counts each GPU as its own node.)";
    AddEvidence(f, intra_refs);
    for (const auto& o : s.overrides)
      if ((o.name == "NCCL_P2P_DISABLE" || o.name == "NCCL_SHM_DISABLE") && o.value != "0")
        f.refs.push_back(Evidence(o.ref));
  } else if (!conn_refs.empty() || (network_socket && spans.value_or(false)) ||
             (network_socket && !why.rdma_failed.empty()) ||
             (!list_refs.empty() && spans.value_or(false) && !OtherNetworkInUse(s))) {
    // Pre-2.6 logs have no "Using network" line: a socket list on several hosts says it.
    DescribeInterNode(f, why);
    AddEvidence(f, !conn_refs.empty() ? conn_refs : !net_refs.empty() ? net_refs : list_refs, 3);
  } else if (!list_refs.empty() && !spans.has_value() && !OtherNetworkInUse(s) &&
             !NoNetworkTraffic(s)) {
    f.severity = Severity::kWarning;
    f.confidence = 0.5;
    f.title = "NCCL's network transport is TCP sockets";
    f.detail =
        "Only a NET/Socket interface list is logged (no RDMA device, no net plugin). If "
        "this job spans nodes, inter-node traffic runs over TCP. The log does not show "
        "how many nodes there are (NCCL_DEBUG_SUBSYS=INIT,NET on all ranks would).";
    AddEvidence(f, list_refs, 2);
  } else {
    return {};
  }
  f.metrics.push_back({"socket_connections", static_cast<double>(conn_refs.size()), Unit::kCount});
  return {f};
}

}  // namespace commdx::analysis
