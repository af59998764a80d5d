// hang.watchdog_timeout (and hang.rank_behind where the work status shows it) from the job's
// own log: PyTorch's watchdog names, per rank, the collective that did not finish (SeqNum, op,
// elements, timeout) and how far each rank had enqueued. A rank whose last enqueued work is
// below the sequence number the others time out in never issued that collective: it is the one
// behind. The Python frames come from a Flight Recorder dump of the same sequence number, when
// one was given.
#include <algorithm>
#include <map>
#include <set>

#include "analysis/catalogue.h"
#include "analysis/hang_analyzers.h"
#include "analysis/hang_flight_util.h"
#include "analysis/hang_watchdog_skew.h"
#include "base/str_format.h"

namespace commdx::analysis {

namespace {

std::string RankList(const std::set<int>& ranks) {
  return RanksPhrase(std::vector<int>(ranks.begin(), ranks.end()));
}

// The Flight Recorder entry of this sequence number on this rank (or the only dump).
void AddFrames(Finding& f, const Job& job, int rank, int64_t seq) {
  for (const FrGroupView& g : GroupFlightDumps(job.flight))
    for (const FrRankView& r : g.ranks) {
      if (r.rank != rank && job.flight.size() > 1) continue;
      auto it = r.by_seq.find(seq);
      if (it != r.by_seq.end()) return AddEntryEvidence(f, r, *it->second);
    }
}

void FindBehind(const Job& job, int64_t seq, std::vector<Finding>& out) {
  // Sequence numbers count per process group: where the statuses of the timed-out work name its
  // group, only that group's statuses are compared with it.
  std::set<std::string> pgs;
  for (const auto& s : job.job_log.statuses)
    if (s.failed_seq == seq && !s.pg.empty()) pgs.insert(s.pg);
  const WatchdogStatus* first = nullptr;
  for (const auto& s : job.job_log.statuses)
    if (s.last_enqueued >= 0 && s.last_enqueued < seq &&
        (pgs.empty() || s.pg.empty() || pgs.count(s.pg)) &&
        (!first || s.last_enqueued < first->last_enqueued))
      first = &s;
  if (!first) return;
  Finding f = NewFinding("hang.rank_behind");
  if (first->rank >= 0) f.rank = first->rank;
  f.title = StrFormat(
      "Rank %s never issued collective #%s that the others timed out in: its "
      "last enqueued work is #%s",
      NumOrUnknown(first->rank).c_str(), NumOrUnknown(seq).c_str(),
      NumOrUnknown(first->last_enqueued).c_str());
  f.detail =
      "The watchdog's work status shows this rank stopped enqueuing collectives before "
      "the one the other ranks waited in until their timeout.";
  f.fix =
      "Find what this rank did instead of the collective (its traceback, a rank-dependent "
      "branch, an exception swallowed, a data wait).";
  f.metrics.push_back({"last_enqueued", static_cast<double>(first->last_enqueued), Unit::kCount});
  f.metrics.push_back({"seq", static_cast<double>(seq), Unit::kNone});
  f.refs.push_back({first->loc, first->line});
  out.push_back(std::move(f));
}

// The log holds no "Watchdog caught ... WorkNCCL(...)" line, only the work status the watchdog
// printed with it ("Timeout at NCCL work: N, last enqueued ...", "failure detected by watchdog
// at work sequence id: N PG status: ..."): which work failed, on which ranks, is known; its
// operation and size are not.
void FromStatuses(const Job& job, std::vector<Finding>& out) {
  std::map<std::pair<std::string, int64_t>, std::vector<const WatchdogStatus*>> by_work;
  for (const auto& s : job.job_log.statuses)
    if (s.failed_seq >= 0) by_work[{s.pg, s.failed_seq}].push_back(&s);
  if (by_work.empty()) return;
  // The work most ranks failed in (the lowest sequence number on a tie).
  auto top = by_work.begin();
  for (auto it = by_work.begin(); it != by_work.end(); ++it)
    if (it->second.size() > top->second.size()) top = it;
  const auto& [key, statuses] = *top;
  std::set<int> ranks;
  bool timed_out = false;
  int64_t enqueued_after = -1;
  for (const WatchdogStatus* s : statuses) {
    ranks.insert(s->rank);
    timed_out = timed_out || s->timed_out;
    if (s->last_enqueued >= key.second)
      enqueued_after = std::max(enqueued_after, s->last_enqueued - key.second);
  }
  Finding f = NewFinding("hang.watchdog_timeout");
  if (ranks.size() == 1 && *ranks.begin() >= 0) f.rank = *ranks.begin();
  const std::string pg = key.first.empty() ? std::string()
                                           : " of process group " + key.first;
  f.title = StrFormat("Watchdog on %s: work #%lld%s %s", RankList(ranks).c_str(),
                      static_cast<long long>(key.second), pg.c_str(),
                      timed_out ? "timed out" : "failed or timed out");
  f.title += " (which collective: unknown, no 'Watchdog caught' line in the log)";
  f.detail =
      "PyTorch's ProcessGroupNCCL watchdog found this work unfinished after its timeout" +
      std::string(timed_out ? "" : " or failed with an NCCL error") +
      " and took the process down; the log gives its work status, not the collective's "
      "operation and size.";
  if (enqueued_after > 0)
    f.detail += StrFormat(" %lld more collective(s) were enqueued after it: the rank went on "
                          "issuing work while this one did not finish.",
                          static_cast<long long>(enqueued_after));
  f.detail +=
      " A timeout is a symptom: a rank that never issued the collective, ranks out of step, a "
      "stuck transfer, or work queued before it on the GPU; an NCCL error line (a WARN, a CUDA "
      "or network error) elsewhere in the job's logs is the cause when there is one.";
  f.fix =
      "Look at the other ranks' logs for the same work number (a rank whose last enqueued work is "
      "below it is the one behind) and for NCCL errors; TORCH_NCCL_TRACE_BUFFER_SIZE=2000 with "
      "TORCH_NCCL_DUMP_ON_TIMEOUT=1 leaves Flight Recorder dumps that name each rank's last "
      "collectives and Python frames.";
  f.metrics.push_back({"seq", static_cast<double>(key.second), Unit::kNone});
  f.metrics.push_back({"ranks", static_cast<double>(ranks.size()), Unit::kRanks});
  for (const WatchdogStatus* s : statuses) {
    if (f.refs.size() >= 3) break;
    f.refs.push_back({s->loc, s->line});
  }
  AddFrames(f, job, statuses.front()->rank, key.second);
  out.push_back(std::move(f));
  FindBehind(job, key.second, out);
}

// The fix of a timeout names only causes that are there: those found here from the watchdog's
// own lines, or, where other inputs were read that can show one, those findings if listed.
std::string TimeoutFix(const Job& job, const std::vector<Finding>& causes) {
  const std::string dumps =
      "TORCH_NCCL_TRACE_BUFFER_SIZE=2000 with TORCH_NCCL_DUMP_ON_TIMEOUT=1 leaves Flight "
      "Recorder dumps that show each rank's last collectives and Python frames.";
  std::set<std::string> ids;
  for (const auto& c : causes) ids.insert(c.id);
  if (!ids.empty()) {
    std::string list;
    for (const auto& id : ids) list += (list.empty() ? "" : " and ") + id;
    return "The timeout is where the hang showed; " + list + " in this report " +
           (ids.size() > 1 ? "say" : "says") + " why: fix that. " + dumps;
  }
  const bool other_sources = !job.nccl.empty() || !job.flight.empty() || !job.ras.empty() ||
                             !job.job_log.mismatches.empty() ||
                             !job.job_log.barrier_timeouts.empty() ||
                             !job.job_log.fr_analysis.empty();
  return std::string(other_sources
                         ? "Where this report lists a hang.rank_behind, hang.desync or NCCL "
                           "error finding, that is the cause. "
                         : "") +
         "Compare every rank's log at this sequence number (a rank whose last enqueued work is "
         "below it never issued it; a rank in another collective at the same number is out of "
         "step) and look for NCCL errors around the timeout; " +
         dumps;
}

}  // namespace

bool HasWorkFailureStatus(const Job& job) {
  for (const auto& s : job.job_log.statuses)
    if (s.failed_seq >= 0) return true;
  return false;
}

std::vector<Finding> FindWatchdogHang(const Job& job, const Options&) {
  std::vector<Finding> out;
  const auto& timeouts = job.job_log.timeouts;
  if (timeouts.empty()) {
    FromStatuses(job, out);
    return out;
  }
  // The collective most ranks timed out in (the lowest sequence number on a tie).
  std::map<std::pair<int64_t, std::string>, std::set<int>> by_work;
  for (const auto& t : timeouts) by_work[{t.seq, t.op}].insert(t.rank);
  auto top = std::max_element(by_work.begin(), by_work.end(),
                              [](auto& a, auto& b) { return a.second.size() < b.second.size(); });
  const auto& [key, ranks] = *top;
  const WatchdogTimeout* t = nullptr;
  for (const auto& x : timeouts)
    if (x.seq == key.first && x.op == key.second && (!t || x.ran_ms > t->ran_ms)) t = &x;
  std::set<int> all_ranks;  // every rank that timed out, in any collective
  for (const auto& x : timeouts) all_ranks.insert(x.rank);
  // No collective that more ranks timed out in than one: each rank its own (often in groups
  // whose sequence numbers do not compare), so no one of them is "the" timeout.
  const bool scattered = ranks.size() == 1 && by_work.size() > 1 && all_ranks.size() > 1;
  Finding f = NewFinding("hang.watchdog_timeout");
  if (all_ranks.size() == 1 && *all_ranks.begin() >= 0) f.rank = *all_ranks.begin();
  // Older PyTorch prints no SeqNum ("WorkNCCL(OpType=ALLREDUCE, Timeout(ms)=1800000)").
  f.title = scattered
                ? StrFormat("Watchdog timeouts on %s in %zu collectives, one on %s: %s",
                            RankList(all_ranks).c_str(), by_work.size(),
                            RankList({t->rank}).c_str(), t->op.c_str())
                : StrFormat("Watchdog timeout on %s: %s", RankList(ranks).c_str(), t->op.c_str());
  if (t->seq >= 0) f.title += StrFormat(" #%lld", static_cast<long long>(t->seq));
  if (t->numel_in >= 0)
    f.title += StrFormat(" of %lld elements", static_cast<long long>(t->numel_in));
  f.title +=
      t->timeout_ms >= 0
          ? StrFormat(" did not finish within %lld ms", static_cast<long long>(t->timeout_ms))
          : std::string(" did not finish within its timeout (unknown: not in the log)");
  f.detail = StrFormat(
      "PyTorch's ProcessGroupNCCL watchdog gave up after %s ms and took the "
      "process down. %zu distinct timed-out collective(s) in the log. A timeout "
      "is a symptom: a rank that never issued the collective, ranks out of "
      "step, a stuck transfer, or work queued before it on the GPU that takes "
      "longer than the timeout.",
      NumOrUnknown(t->ran_ms).c_str(), by_work.size());
  if (scattered) {
    f.detail += " No collective timed out on more than one rank; the timed-out ones:";
    size_t shown = 0;
    for (const auto& x : timeouts) {
      if (shown++ == 6) {
        f.detail += StrFormat(" and %zu more", timeouts.size() - 6);
        break;
      }
      f.detail +=
          StrFormat("%s %s %s", shown > 1 ? ";" : "", RankList({x.rank}).c_str(), x.op.c_str());
      if (x.seq >= 0) f.detail += StrFormat(" #%lld", static_cast<long long>(x.seq));
      if (!x.pg.empty()) f.detail += " (PG " + x.pg + ")";
    }
    f.detail +=
        ". Sequence numbers count per process group, so numbers of different groups say "
        "nothing about which rank is behind; the first timeout in time is the closest to the "
        "cause (by the log's timestamps).";
  }
  if (t->seq >= 0) f.metrics.push_back({"seq", static_cast<double>(t->seq), Unit::kNone});
  if (t->ran_ms >= 0) f.metrics.push_back({"ran", static_cast<double>(t->ran_ms) * 1e6, Unit::kNs});
  if (t->timeout_ms >= 0)
    f.metrics.push_back({"timeout", static_cast<double>(t->timeout_ms) * 1e6, Unit::kNs});
  f.metrics.push_back({"ranks", static_cast<double>(all_ranks.size()), Unit::kRanks});
  f.refs.push_back({t->loc, t->line});
  for (const auto& s : job.job_log.statuses)
    if (s.failed_seq == t->seq && f.refs.size() < 3) f.refs.push_back({s.loc, s.line});
  AddFrames(f, job, t->rank, t->seq);
  // Where the ranks timed out says why, when they are out of step; else the work status may.
  std::vector<Finding> causes = FindTimeoutSkew(job);
  if (std::none_of(causes.begin(), causes.end(),
                   [](const Finding& c) { return c.id == "hang.rank_behind"; }))
    FindBehind(job, t->seq, causes);
  f.fix = TimeoutFix(job, causes);
  out.push_back(std::move(f));
  for (auto& c : causes) out.push_back(std::move(c));
  return out;
}

}  // namespace commdx::analysis
