#include "analysis/comm_common.h"

#include <algorithm>
#include <charconv>
#include <set>

namespace commdx::analysis {

namespace {
bool Starts(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
}  // namespace

EvidenceRef Evidence(const NcclLineRef& ref) { return EvidenceRef{ref.loc, ref.line}; }

void AddEvidence(Finding& f, const std::vector<const NcclLineRef*>& refs, size_t limit) {
  size_t n = 0;
  for (const auto* r : refs) {
    if (!r || r->line.empty()) continue;
    if (n++ < limit) f.refs.push_back(Evidence(*r));
  }
  if (n > limit)
    f.refs.push_back({{}, "... and " + std::to_string(n - limit) + " more lines like these"});
}

const NcclEnvOverride* FindOverride(const NcclSetup& s, std::string_view name) {
  for (const auto& o : s.overrides)
    if (o.name == name) return &o;
  return nullptr;
}

std::string NodeOfRank(const NcclCommunicator& c, int rank) {
  auto it = c.ranks.find(rank);
  if (it == c.ranks.end() || it->second.host.empty()) return {};
  const NcclRankInfo& r = it->second;
  return r.host_id.empty() ? r.host : r.host + " (NCCL_HOSTID " + r.host_id + ")";
}

bool SameNode(const NcclCommunicator& c, int a, int b) {
  if (c.nnodes == 1) return true;
  std::string ha = NodeOfRank(c, a), hb = NodeOfRank(c, b);
  return !ha.empty() && ha == hb;
}

namespace {

// Union-find root of `x`, halving the path as it goes.
int Root(std::vector<int>& parent, int x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

bool JoinedInNode(const NcclCommunicator& c) {
  if (c.nranks < 2 || c.connections.empty()) return false;
  std::vector<int> parent(static_cast<size_t>(c.nranks));
  for (int i = 0; i < c.nranks; ++i) parent[i] = i;
  int parts = c.nranks;
  for (const auto& x : c.connections) {
    if (x.kind != TransportKind::kP2P && x.kind != TransportKind::kShm) return false;
    if (x.from_rank < 0 || x.to_rank < 0 || x.from_rank >= c.nranks || x.to_rank >= c.nranks)
      return false;
    const int a = Root(parent, x.from_rank), b = Root(parent, x.to_rank);
    if (a != b) parent[a] = b, --parts;
  }
  return parts == 1;
}

}  // namespace

bool NoNetworkTraffic(const NcclSetup& s) {
  if (s.communicators.empty()) return false;
  for (const auto& c : s.communicators)
    if (!JoinedInNode(c)) return false;
  return true;
}

std::optional<bool> SpansHosts(const NcclSetup& s) {
  bool single_known = false;
  for (const auto& c : s.communicators) {
    if (c.nnodes > 1) {
      // With P2P and SHM both off NCCL counts every rank as its own node (nNodes 2 on one
      // host): believe the hosts when every rank's host is known.
      std::set<std::string> rank_hosts;
      bool all_known = static_cast<int>(c.ranks.size()) == c.nranks;
      for (const auto& [r, info] : c.ranks) {
        if (info.host.empty()) all_known = false;
        rank_hosts.insert(NodeOfRank(c, r));
      }
      if (!(all_known && rank_hosts.size() == 1)) return true;
      single_known = true;
    }
    if (c.nnodes == 1) single_known = true;
  }
  std::set<std::string> hosts;
  for (const auto& p : s.processes)
    if (!p.host.empty()) hosts.insert(p.host);
  if (hosts.size() > 1) return true;
  // A connect attempt to an address no local interface has: the peer is elsewhere.
  std::set<std::string> local;
  for (const auto& n : s.nets)
    for (const auto& nic : n.nics)
      if (!nic.address.empty()) local.insert(nic.address);
  for (const auto& w : s.warnings) {
    size_t at = w.text.find("onnect to ");
    if (at == std::string::npos) continue;
    std::string addr = w.text.substr(at + 10);
    addr = addr.substr(0, addr.find('<'));
    if (!addr.empty() && !local.empty() && !local.count(addr)) return true;
  }
  if (single_known) return false;
  // One host in the logs is the whole job only when a communicator's every rank was seen there:
  // each node writes its own logs, and users often pass one node's (NVIDIA/nccl#975: eight
  // ranks of a multi-node job, all on one host, no line with the node count).
  if (hosts.size() == 1)
    for (const auto& c : s.communicators)
      if (c.nranks > 0 && static_cast<int>(c.ranks.size()) == c.nranks) return false;
  return std::nullopt;
}

int CompareVersions(std::string_view a, std::string_view b) {
  auto parts = [](std::string_view v) {
    std::vector<int> out;
    while (!v.empty()) {
      int x = 0;
      auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
      if (ec != std::errc()) break;
      out.push_back(x);
      v.remove_prefix(static_cast<size_t>(p - v.data()));
      if (!v.empty() && v[0] == '.')
        v.remove_prefix(1);
      else
        break;
    }
    return out;
  };
  auto pa = parts(a), pb = parts(b);
  return pa < pb ? -1 : pa > pb ? 1 : 0;
}

std::string JobVersion(const NcclSetup& s) {
  for (const auto& p : s.processes)
    if (!p.version.empty()) return p.version;
  for (const auto& v : s.loose_versions)
    if (!v.version.empty()) return v.version;
  return {};
}

std::string SuspiciousInterface(std::string_view name, std::string_view address) {
  if (name == "lo" || Starts(address, "127.") || address == "::1") return "loopback";
  // A veth with a routable address is a container's own end of the pair (its main interface);
  // the host ends (vethXXXX) carry only link-local addresses.
  if (Starts(name, "veth") && !address.empty() && !Starts(address, "fe80:")) return {};
  if (Starts(name, "docker") || Starts(name, "br-") || Starts(name, "virbr") ||
      Starts(name, "veth") || Starts(name, "cni") || Starts(name, "flannel") ||
      Starts(name, "cali") || Starts(name, "kube-"))
    return "container/virtual bridge, local to this host";
  if (Starts(name, "ip6tnl") || Starts(name, "tun") || Starts(name, "tap") || Starts(name, "wg") ||
      Starts(name, "tailscale") || Starts(name, "zt") || Starts(name, "CloudflareWARP") ||
      Starts(name, "vpn") || Starts(name, "ppp"))
    return "tunnel/VPN interface";
  if (Starts(address, "fe80:") || Starts(address, "169.254.")) return "link-local address";
  return {};
}

void HostValues::Add(const std::string& host, const std::string& value, const NcclLineRef& ref) {
  if (value.empty()) return;
  hosts_by_value[value].insert(host);
  ref_by_value.emplace(value, &ref);
}

bool HostValues::Differs() const {
  if (hosts_by_value.size() < 2) return false;
  std::set<std::string> all;
  for (const auto& [v, hosts] : hosts_by_value) all.insert(hosts.begin(), hosts.end());
  return all.size() >= 2;
}

std::string HostList(const std::set<std::string>& hosts) {
  std::string out;
  size_t shown = 0;
  for (const auto& h : hosts) {
    if (shown++ == 4) break;
    out += (out.empty() ? "" : ", ") + (h.empty() ? std::string("?") : h);
  }
  if (hosts.size() > 4) out += " and " + std::to_string(hosts.size() - 4) + " more";
  return out;
}

}  // namespace commdx::analysis
