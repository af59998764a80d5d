// hang.rank_behind, hang.desync, hang.stuck_collective and hang.watchdog_timeout from PyTorch
// Flight Recorder dumps. Entries of one process group are matched across ranks by
// collective_seq_id (the same on every rank for the same collective; send/recv have their own
// p2p_seq_id and are left out):
//  - a rank whose last collective is older than the others' did not reach theirs;
//  - at one sequence number, another op, input size or dtype means the ranks are out of step;
//  - every rank in the same collective and none finished: the collective itself is stuck
//    (network, NCCL), not the program;
//  - an entry retired without completing timed out (the watchdog gave up on it).
#include <algorithm>
#include <map>
#include <optional>

#include "analysis/catalogue.h"
#include "analysis/hang_analyzers.h"
#include "analysis/hang_flight_util.h"
#include "base/str_format.h"

namespace commdx::analysis {

namespace {

void FindBehind(const FrGroupView& g, std::vector<Finding>& out) {
  int64_t top = -1;
  for (const auto& r : g.ranks) top = std::max(top, r.last_seq());
  const FrRankView* first = nullptr;
  const FrRankView* waiting = nullptr;
  size_t behind = 0;
  for (const auto& r : g.ranks) {
    if (r.last_seq() == top) {
      if (!waiting) waiting = &r;
      continue;
    }
    ++behind;
    if (!first || r.last_seq() < first->last_seq()) first = &r;
  }
  if (!first) return;
  const FrEntry& last = *first->last();
  const FrEntry& wait = *waiting->last();
  Finding f = NewFinding("hang.rank_behind");
  f.rank = first->rank;
  f.confidence = 0.8;
  f.title = StrFormat(
      "Rank %d is behind in process group %s: its last collective is #%lld "
      "(%s), rank %d is in #%lld (%s, %s)",
      first->rank, g.name.c_str(), static_cast<long long>(last.collective_seq_id),
      DescribeEntry(last).c_str(), waiting->rank, static_cast<long long>(wait.collective_seq_id),
      DescribeEntry(wait).c_str(), wait.state.c_str());
  f.detail = StrFormat(
      "%zu of %zu ranks with dumps never issued collective #%lld of this "
      "process group. The others wait in it until the watchdog times out. "
      "The stuck rank's last call and the call the others wait in are shown "
      "with their Python frames.",
      behind, g.ranks.size(), static_cast<long long>(top));
  f.fix = "Look at what rank " + std::to_string(first->rank) +
          " did after its last collective (its frames below): an exception, a rank-dependent "
          "branch or data wait that skipped the collective the others issued.";
  f.metrics.push_back({"last_seq", static_cast<double>(last.collective_seq_id), Unit::kCount});
  f.metrics.push_back({"others_seq", static_cast<double>(top), Unit::kCount});
  f.metrics.push_back({"ranks_behind", static_cast<double>(behind), Unit::kRanks});
  AddEntryEvidence(f, *first, last);
  AddEntryEvidence(f, *waiting, wait);
  out.push_back(std::move(f));
}

void FindDesync(const FrGroupView& g, std::vector<Finding>& out) {
  int64_t limit = INT64_MAX;
  for (const auto& r : g.ranks) limit = std::min(limit, r.last_seq());
  for (const auto& [seq, e0] : g.ranks[0].by_seq) {
    if (seq > limit) break;
    std::map<std::string, std::vector<std::pair<const FrRankView*, const FrEntry*>>> variants;
    for (const auto& r : g.ranks) {
      auto it = r.by_seq.find(seq);
      if (it == r.by_seq.end()) continue;  // dropped from this rank's ring buffer
      variants[Signature(*it->second)].push_back({&r, it->second});
    }
    if (variants.size() < 2) continue;
    Finding f = NewFinding("hang.desync");
    std::string groups;
    size_t most = 0;
    for (const auto& [sig, rs] : variants) most = std::max(most, rs.size());
    for (const auto& [sig, rs] : variants) {
      std::string list;
      for (const auto& [r, e] : rs) list += (list.empty() ? "" : ",") + std::to_string(r->rank);
      groups += StrFormat("%sranks %s: %s", groups.empty() ? "" : "; ", list.c_str(), sig.c_str());
      if (rs.size() < most && !f.rank) f.rank = rs.front().first->rank;
      AddEntryEvidence(f, *rs.front().first, *rs.front().second);
    }
    f.title = StrFormat("Ranks of process group %s issued different collectives at #%lld",
                        g.name.c_str(), static_cast<long long>(seq));
    f.detail =
        "Every rank must issue the same collectives with the same shapes in the same "
        "order. At this sequence number they did not (" +
        groups + "): the job hangs there or exchanges wrong data.";
    f.fix =
        "Make every rank take the same path to this call (frames below); "
        "TORCH_DISTRIBUTED_DEBUG=DETAIL checks order and shapes at run time.";
    f.metrics.push_back({"seq", static_cast<double>(seq), Unit::kNone});
    out.push_back(std::move(f));
    return;  // the first divergence explains the rest
  }
}

// Every rank with a dump is in the same last collective and none finished it. With one rank
// only, that may be a dump taken while a collective ran: info.
void FindStuck(const FrGroupView& g, std::vector<Finding>& out) {
  const FrEntry* e = g.ranks[0].last();
  for (const auto& r : g.ranks)
    if (r.last_seq() != e->collective_seq_id || r.last()->state == "completed") return;
  Finding f = NewFinding("hang.stuck_collective");
  bool alone = g.ranks.size() == 1 && g.missing.empty();
  if (alone) f.severity = Severity::kInfo;
  f.rank = alone ? std::optional<int>(g.ranks[0].rank) : std::nullopt;
  // Who is in it: one rank by number, several as "every rank with a dump" where some left none.
  std::string who = g.ranks.size() == 1 ? "Rank " + std::to_string(g.ranks[0].rank)
                    : g.missing.empty() ? std::string("Every rank")
                                        : std::string("Every rank with a dump");
  f.title = StrFormat("%s of process group %s is in collective #%lld (%s), not completed when "
                      "dumped",
                      who.c_str(), g.name.c_str(), static_cast<long long>(e->collective_seq_id),
                      DescribeEntry(*e).c_str());
  f.detail =
      "The program issued this collective on every rank that left a dump, and it had "
      "not completed (state " +
      e->state +
      "). If the job hung, the transfer itself is "
      "stuck or still waits for work queued before it on the GPU: the network, NCCL's "
      "transport (see the NCCL findings), a long kernel, or a GPU fault.";
  if (!g.missing.empty()) {
    std::string list;
    for (int r : g.missing) list += (list.empty() ? "" : ",") + std::to_string(r);
    f.detail += StrFormat(" Rank%s %s of this group left no dump: look %s first.",
                          g.missing.size() > 1 ? "s" : "", list.c_str(),
                          g.missing.size() > 1 ? "at them" : "at it");
    f.title += StrFormat("; rank%s %s left no dump", g.missing.size() > 1 ? "s" : "", list.c_str());
  }
  f.fix =
      "Check the NCCL log and WARN lines of all ranks and the network links; the Python "
      "frames show where the program waits.";
  f.metrics.push_back({"seq", static_cast<double>(e->collective_seq_id), Unit::kNone});
  f.metrics.push_back({"missing_ranks", static_cast<double>(g.missing.size()), Unit::kRanks});
  AddEntryEvidence(f, g.ranks[0], *e);
  out.push_back(std::move(f));
}

void FindTimedOut(const FrGroupView& g, std::vector<Finding>& out) {
  for (const auto& r : g.ranks) {
    for (const auto& [seq, e] : r.by_seq) {
      if (!e->retired || e->state == "completed") continue;
      Finding f = NewFinding("hang.watchdog_timeout");
      f.rank = r.rank;
      f.title = StrFormat(
          "Rank %s: collective #%lld (%s) of process group %s timed out after "
          "%s ms",
          NumOrUnknown(r.rank).c_str(), static_cast<long long>(seq), DescribeEntry(*e).c_str(),
          g.name.c_str(), NumOrUnknown(e->timeout_ms).c_str());
      f.detail = "The watchdog retired this collective without seeing it complete (state " +
                 e->state + ").";
      f.fix = "See the rank-behind / desync / stuck-collective findings for why.";
      if (e->timeout_ms >= 0)
        f.metrics.push_back({"timeout", static_cast<double>(e->timeout_ms) * 1e6, Unit::kNs});
      AddEntryEvidence(f, r, *e);
      out.push_back(std::move(f));
      break;
    }
  }
}

}  // namespace

std::vector<Finding> FindFlightHang(const Job& job, const Options&) {
  std::vector<Finding> out;
  for (const FrGroupView& g : GroupFlightDumps(job.flight)) {
    size_t before = out.size();
    if (g.ranks.size() >= 2) {
      FindDesync(g, out);
      FindBehind(g, out);
    }
    if (out.size() == before) FindStuck(g, out);
    FindTimedOut(g, out);
  }
  return out;
}

}  // namespace commdx::analysis
