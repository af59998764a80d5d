// Helpers shared by the NCCL-log analyzers: where ranks run, which overrides are set, evidence.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "model/finding.h"
#include "model/nccl_setup.h"

namespace commdx::analysis {

EvidenceRef Evidence(const NcclLineRef& ref);
// Adds up to `limit` refs (the rest are counted in a final "... and N more lines" ref).
void AddEvidence(Finding& f, const std::vector<const NcclLineRef*>& refs, size_t limit = 6);

// The first override of `name` (any process), or nullptr.
const NcclEnvOverride* FindOverride(const NcclSetup& s, std::string_view name);

// The node a rank is on as NCCL tells nodes apart: its host name, and its NCCL_HOSTID where the
// log shows one ("" when the host is unknown).
std::string NodeOfRank(const NcclCommunicator& c, int rank);
// Both ranks known to run on one node (same host and host id), or the communicator says nNodes 1.
bool SameNode(const NcclCommunicator& c, int a, int b);

// Whether the job's ranks span several hosts: nNodes > 1, several distinct hosts, or a connect
// attempt to an address that none of the local interfaces has; false on nNodes 1 or one host
// holding every rank of a communicator; nullopt when nothing tells.
std::optional<bool> SpansHosts(const NcclSetup& s);

// Every communicator the log shows is joined within one node: its connection lines link all its
// nranks ranks by P2P or SHM alone and none goes through the network (a single-node job seen
// whole, e.g. a ring "0 1" whose one hop is P2P). The network transport then carries none of
// its traffic, whatever it is. False when the log has no communicator or no connection lines.
bool NoNetworkTraffic(const NcclSetup& s);

// Which hosts show which value of one setting (network, plugin kind, address family, ...).
struct HostValues {
  std::map<std::string, std::set<std::string>> hosts_by_value;
  std::map<std::string, const NcclLineRef*> ref_by_value;  // first line showing each value
  void Add(const std::string& host, const std::string& value, const NcclLineRef& ref);
  // Two values, each on a host the other does not have (one process may log both in a mixed
  // excerpt, which is not a difference between hosts).
  bool Differs() const;
};

// "a, b, c and 2 more" (at most four names; an empty host, a stripped prefix, prints as "?").
std::string HostList(const std::set<std::string>& hosts);

// -1, 0, 1 comparing "2.19.3"-style versions; empty or unparsable sorts first.
int CompareVersions(std::string_view a, std::string_view b);
// The one NCCL version the logs show (first process with one, else a loose banner), or "".
std::string JobVersion(const NcclSetup& s);

// Suspicious socket interface: loopback, docker/bridges/veth/virbr, tunnels, VPNs, link-local.
// Returns why, or "" if the interface looks like a real data NIC.
std::string SuspiciousInterface(std::string_view name, std::string_view address);

}  // namespace commdx::analysis
