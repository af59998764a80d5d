#include "analysis/inspector_match.h"

#include <algorithm>
#include <map>

namespace commdx::analysis {

namespace {

void Settle(MatchedColl& m, int n_ranks, bool one_host) {
  std::sort(m.ranks.begin(), m.ranks.end(),
            [](const InspectorRecord* a, const InspectorRecord* b) { return a->rank < b->rank; });
  m.complete = static_cast<int>(m.ranks.size()) == n_ranks;
  if (!m.complete || m.ranks.size() < 2) return;
  const InspectorRecord* shortest = m.ranks.front();
  int64_t longest = 0;
  for (const InspectorRecord* r : m.ranks) {
    if (r->exec_ns < shortest->exec_ns) shortest = r;
    longest = std::max(longest, r->exec_ns);
  }
  m.late_rank = shortest->rank;
  m.transfer_ns = shortest->exec_ns;
  m.wait_ns = longest - shortest->exec_ns;
  if (!one_host) return;
  const InspectorRecord* earliest = nullptr;
  const InspectorRecord* latest = nullptr;
  for (const InspectorRecord* r : m.ranks) {
    if (!r->verbose || r->channels == 0) return;
    if (!earliest || r->kernel_start_ns < earliest->kernel_start_ns) earliest = r;
    if (!latest || r->kernel_start_ns > latest->kernel_start_ns) latest = r;
  }
  m.kernel_start_skew_ns = latest->kernel_start_ns - earliest->kernel_start_ns;
  m.kernel_start_late_rank = latest->rank;
}

}  // namespace

std::vector<InspectorComm> MatchInspector(const std::vector<InspectorRecord>& records) {
  // coll_sn counts per collective function (NCCL keeps a sequence number per function), so the
  // key is the function and its number.
  std::map<std::string, std::map<std::pair<std::string, uint64_t>, MatchedColl>> by_comm;
  std::map<std::string, InspectorComm> comms;
  std::map<std::string, std::map<int, bool>> ranks;
  for (const InspectorRecord& r : records) {
    InspectorComm& c = comms[r.comm_id];
    if (c.id.empty()) {
      c.id = r.comm_id;
      c.nnodes = r.nnodes;
    }
    if (c.name.empty()) c.name = r.comm_name;
    c.n_ranks = std::max(c.n_ranks, r.n_ranks);
    c.nnodes = std::max(c.nnodes, r.nnodes);
    ranks[r.comm_id][r.rank] = true;
    MatchedColl& m = by_comm[r.comm_id][{r.coll, r.coll_sn}];
    if (!m.first) m.first = &r;
    if (m.first->hostname != r.hostname) c.one_host = false;
    m.ranks.push_back(&r);
  }
  std::vector<InspectorComm> out;
  for (auto& [id, c] : comms) {
    c.ranks_seen = static_cast<int>(ranks[id].size());
    // One host for the whole communicator, not only per collective: the clock is the host's.
    std::string host;
    for (const auto& [sn, m] : by_comm[id])
      for (const InspectorRecord* r : m.ranks) {
        if (host.empty()) host = r->hostname;
        if (r->hostname != host) c.one_host = false;
      }
    for (auto& [sn, m] : by_comm[id]) {
      Settle(m, c.n_ranks, c.one_host);
      c.colls.push_back(std::move(m));
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::string InspectorCommLabel(const InspectorComm& c) {
  // The plugin writes "unknown" for a communicator the application did not name.
  if (c.name.empty() || c.name == "unknown") return c.id;
  return c.id + " (\"" + c.name + "\")";
}

const char* InspectorCommType(const InspectorComm& c) {
  if (c.n_ranks <= 1) return "single-rank";
  if (c.nnodes <= 1) return "nvlink-only";
  if (c.nnodes == c.n_ranks) return "network";
  return "mixed";
}

}  // namespace commdx::analysis
