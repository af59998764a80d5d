// comm.host_mismatch: the hosts of one job set NCCL up differently where they must agree.
//
//  - Address family of the bootstrap interface: one host bootstraps over IPv6 (often a
//    link-local fe80:: address on ib0) and another over IPv4 (bond0). NCCL's bootstrap and
//    socket connections go from one to the other, and a family the peer does not have
//    never connects. Interface *names* may differ between hosts (eth0 here, eno1 there), so
//    only the family is compared.
//  - Inter-node transport: a host whose connections to other nodes go over NET/Socket while
//    another's go over NET/IB (or a plugin) has lost its RDMA path; both ends of a connection
//    must use the same network.
// Versions and network plugins are compared by comm.version_mismatch and
// comm.net_plugin_mismatch. Only facts logged on at least two hosts are compared: an excerpt
// that lacks a line on one host proves nothing.
#include "analysis/catalogue.h"
#include "analysis/comm_analyzers.h"
#include "analysis/comm_common.h"

namespace commdx::analysis {

namespace {

// "bootstrap over IPv4 on gh2; bootstrap over IPv6 link-local on gh1"
std::string Describe(const HostValues& seen, const char* what) {
  std::string out;
  for (const auto& [v, h] : seen.hosts_by_value)
    out += (out.empty() ? "" : "; ") + std::string(what) + " " + v + " on " + HostList(h);
  return out;
}

std::string AddressFamily(const std::string& address) {
  if (address.empty()) return "";
  if (address.find(':') == std::string::npos) return "IPv4";
  return address.rfind("fe80", 0) == 0 ? "IPv6 link-local" : "IPv6";
}

Finding Mismatch(const HostValues& seen, const char* what, const std::string& title,
                 const std::string& detail, const std::string& fix) {
  Finding f = NewFinding("comm.host_mismatch");
  f.severity = Severity::kError;
  f.method_step = 9;
  f.title = title + ": " + Describe(seen, what);
  f.detail = detail;
  f.fix = fix;
  for (const auto& [v, r] : seen.ref_by_value) f.refs.push_back(Evidence(*r));
  f.metrics.push_back({"variants", static_cast<double>(seen.hosts_by_value.size()), Unit::kCount});
  return f;
}

}  // namespace

std::vector<Finding> FindCommHostMismatch(const Job& job, const Options&) {
  const NcclSetup& s = job.nccl;
  HostValues family, transport;  // hosts are never empty here: a stripped prefix is no host
  for (const auto& n : s.nets) {
    // The bootstrap interface (the first listed; "Bootstrap : Using ib0:..." has no index),
    // else the first NET/Socket one.
    const NcclNic* first = nullptr;
    for (const auto& nic : n.nics) {
      if (nic.index > 0) continue;
      if (nic.role == "bootstrap" && (!first || first->role != "bootstrap")) first = &nic;
      if (nic.role == "socket" && !first) first = &nic;
    }
    if (first && !n.nic_refs.empty() && !n.host.empty())
      family.Add(n.host, AddressFamily(first->address) + " (" + first->name + ")",
                 n.nic_refs.front());
  }
  // Collapse "IPv4 (eth0)" and "IPv4 (eno1)": names may differ, families may not.
  HostValues families;
  for (const auto& [v, hosts] : family.hosts_by_value)
    for (const auto& h : hosts)
      families.Add(h, v.substr(0, v.find(" (")), *family.ref_by_value.at(v));
  for (const auto& c : s.communicators)
    for (const auto& x : c.connections)
      if (!SameNode(c, x.from_rank, x.to_rank) && !x.host.empty() &&
          (x.kind == TransportKind::kNetSocket || x.kind == TransportKind::kNetIB ||
           x.kind == TransportKind::kNetOther))
        transport.Add(x.host, TransportKindName(x.kind), x.ref);
  std::vector<Finding> out;
  if (families.Differs())
    out.push_back(Mismatch(
        families, "bootstrap over", "Hosts bootstrap over different address families",
        "NCCL connects every host to the others through the first interface each one picked; a "
        "host on IPv6 (a link-local fe80:: address only reaches its own link) cannot reach a "
        "host that listens on IPv4, so init hangs or times out.",
        "Set NCCL_SOCKET_IFNAME (and NCCL_SOCKET_FAMILY=AF_INET if needed) so that every host "
        "uses an interface of the same IP network; check `ip -br addr` on each host."));
  if (transport.Differs())
    out.push_back(Mismatch(
        transport, "inter-node transport", "Hosts use different inter-node transports",
        "Connections to other nodes go over different networks depending on the host: the "
        "hosts on NET/Socket have lost their RDMA path (devices not visible, plugin missing, "
        "NCCL_IB_DISABLE set there) and every ring through them runs at socket speed.",
        "Compare the hosts' NET/IB device lists, net plugin and NCCL_* environment; make the "
        "RDMA devices usable on the hosts that use sockets."));
  return out;
}

}  // namespace commdx::analysis
