// comm.wrong_interface: NCCL bootstraps or stripes socket traffic over an interface that does not
// route between hosts: loopback, docker/bridge/veth/virbr, tunnels and VPNs, link-local IPv6.
// NCCL's automatic choice only avoids docker* and lo; it takes ip6tnl0, br-*, veth*, virbr0 or a
// VPN when they come first. Error when ranks span hosts (or a connect to a peer failed), warning
// when the node count is unknown, info for loopback on a single node — also when NCCL counts
// several nodes (NCCL_HOSTID) but every rank's host name is the same machine. An interface that
// sits only in the NET/Socket list of a process whose network is IB carries nothing (info).
#include <algorithm>
#include <set>

#include "analysis/catalogue.h"
#include "analysis/comm_analyzers.h"
#include "analysis/comm_common.h"

namespace commdx::analysis {

namespace {

// The one machine every rank of every communicator runs on, when each rank's host is known and
// they share it, even where NCCL_HOSTID makes NCCL count them as several nodes; empty otherwise.
std::string OneMachine(const NcclSetup& s) {
  if (s.communicators.empty()) return {};  // one host's log of a job may be all there is
  std::set<std::string> hosts;
  for (const auto& c : s.communicators) {
    if (static_cast<int>(c.ranks.size()) != c.nranks) return {};
    for (const auto& [r, info] : c.ranks) {
      if (info.host.empty()) return {};
      hosts.insert(info.host);
    }
  }
  for (const auto& p : s.processes)
    if (!p.host.empty()) hosts.insert(p.host);
  return hosts.size() == 1 ? *hosts.begin() : std::string();
}

// Suspicious interfaces listed only for NCCL's socket transport where IB carries the data.
std::vector<Finding> UnusedSocketInterfaces(const std::set<std::string>& names,
                                            const std::vector<const NcclLineRef*>& refs) {
  if (names.empty()) return {};
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  Finding f = NewFinding("comm.wrong_interface");
  f.method_step = 4;
  f.severity = Severity::kInfo;
  f.title = "NET/Socket lists " + list + ", unused while NCCL runs over InfiniBand";
  f.detail =
      "The processes that list it use NET/IB for their traffic: NCCL initialises its socket "
      "transport beside IB and lists the interfaces it would use, but only falls back to them "
      "if IB fails. Bootstrap and IB's out-of-band connection use their own interface.";
  f.fix =
      "Nothing needed while IB is used. To keep a fallback off the bridge, exclude it: "
      "NCCL_SOCKET_IFNAME=^docker,lo,veth,br-,virbr.";
  AddEvidence(f, refs, 3);
  f.metrics.push_back({"suspicious_interfaces", static_cast<double>(names.size()), Unit::kCount});
  return {f};
}

}  // namespace

std::vector<Finding> FindCommWrongInterface(const Job& job, const Options&) {
  const NcclSetup& s = job.nccl;
  std::set<std::string> bad_names, good_names;
  std::string first_why, first_name;
  std::vector<const NcclLineRef*> refs;
  size_t socket_list = 0;
  // Interfaces that only sit in the NET/Socket list of a process whose network is IB: NCCL
  // initialises its socket transport beside IB and lists them, but IB carries the data (the
  // internal plugin takes IB first); they matter only if it falls back to sockets.
  std::set<std::string> unused_bad;
  std::vector<const NcclLineRef*> unused_refs;
  for (const auto& n : s.nets) {
    bool this_net_bad = false;
    size_t sockets_here = 0;
    const bool ib =
        n.network == "IB" ||
        (n.network.empty() && std::any_of(n.nics.begin(), n.nics.end(),
                                          [](const NcclNic& x) { return x.role == "ib"; }));
    for (const auto& nic : n.nics) {
      if (nic.role == "socket") socket_list = std::max(socket_list, ++sockets_here);
      if (nic.role == "socket" && ib) {
        if (!SuspiciousInterface(nic.name, nic.address).empty()) {
          unused_bad.insert(nic.name);
          for (const auto& r : n.nic_refs) unused_refs.push_back(&r);
        }
        continue;
      }
      if (nic.role != "socket" && nic.role != "bootstrap") continue;
      // Bootstrap uses the first interface only; NET/Socket stripes over all listed.
      if (nic.role == "bootstrap" && nic.index > 0) continue;
      std::string why = SuspiciousInterface(nic.name, nic.address);
      if (why.empty()) {
        good_names.insert(nic.name);
        continue;
      }
      if (first_why.empty()) first_why = why, first_name = nic.name;
      bad_names.insert(nic.name);
      this_net_bad = true;
    }
    if (this_net_bad)
      for (const auto& r : n.nic_refs) refs.push_back(&r);
  }
  if (bad_names.empty()) return UnusedSocketInterfaces(unused_bad, unused_refs);
  bool connect_failed = false;
  for (const auto& w : s.warnings) {
    if (w.text.find("onnect") != std::string::npos &&
        (w.text.find("timed out") != std::string::npos ||
         w.text.find("refused") != std::string::npos ||
         w.text.find("unreachable") != std::string::npos)) {
      connect_failed = true;
      refs.push_back(&w.ref);
    }
  }
  std::optional<bool> spans = SpansHosts(s);
  // The log does not say; an nccl-tests header read beside it lists every rank's host.
  if (!spans)
    for (const BenchResult& r : job.bench)
      if (r.source == BenchSource::kNcclTests && r.nranks > 0 && r.topology.nodes > 0)
        spans = r.topology.nodes > 1;
  bool only_loopback = first_why == "loopback" && bad_names.size() == 1;
  // Ranks NCCL counts as nodes (NCCL_HOSTID) that all run on one machine reach each other over
  // loopback: it works there, and only there.
  const std::string machine = only_loopback ? OneMachine(s) : std::string();
  Finding f = NewFinding("comm.wrong_interface");
  f.method_step = 4;
  if (!machine.empty() && !connect_failed) {
    f.severity = Severity::kInfo;
  } else if (spans.value_or(false) || connect_failed) {
    f.severity = Severity::kError;
  } else if (!spans.has_value()) {
    f.severity = Severity::kWarning;
    f.confidence = 0.6;
  } else {
    // One node: sockets carry no inter-node traffic. Worth a note, not an alarm.
    f.severity = Severity::kInfo;
  }
  std::string names;
  size_t shown = 0;
  for (const auto& n : bad_names)
    if (shown++ < 4) names += (names.empty() ? "" : ", ") + n;
  if (bad_names.size() > 4) names += " and " + std::to_string(bad_names.size() - 4) + " more";
  f.title = "NCCL uses interface" + std::string(bad_names.size() > 1 ? "s " : " ") + names + " (" +
            first_why + ")";
  f.detail = !machine.empty() && f.severity == Severity::kInfo && spans.value_or(false)
                 ? "Every rank runs on host " + machine +
                       ", though NCCL counts them as several nodes (NCCL_HOSTID): loopback "
                       "reaches them there, and would reach no rank on another host."
             : only_loopback && f.severity == Severity::kInfo
                 ? std::string("Loopback works only while every rank is on this node.")
                 : "These interfaces do not reach other hosts (or only through a slow path). "
                   "NCCL uses the first listed one for bootstrap and stripes NET/Socket traffic "
                   "over every listed one, so connections time out or crawl.";
  if (socket_list > 1 && f.severity != Severity::kInfo)
    f.detail += " The NET/Socket list has " + std::to_string(socket_list) + " entries.";
  f.fix =
      "Set NCCL_SOCKET_IFNAME to the data-network interface present on every node (e.g. "
      "NCCL_SOCKET_IFNAME=eth0, or an exclusion like NCCL_SOCKET_IFNAME=^docker,lo,veth,br-,"
      "virbr); check `ip -br addr` on each host.";
  if (!good_names.empty()) {
    std::string list;
    for (const auto& n : good_names) list += (list.empty() ? "" : ",") + n;
    f.fix += " The log also lists " + list +
             ", which looks like a routable interface: "
             "NCCL_SOCKET_IFNAME=" +
             list + ".";
  }
  AddEvidence(f, refs, 5);
  f.metrics.push_back(
      {"suspicious_interfaces", static_cast<double>(bad_names.size()), Unit::kCount});
  return {f};
}

}  // namespace commdx::analysis
