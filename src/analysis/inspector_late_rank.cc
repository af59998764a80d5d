// inspector.late_rank: a rank the others wait for, from NCCL Inspector records. Per collective
// matched across every rank of its communicator (inspector_match.h) the rank with the shortest
// kernel time is the late one and the others' extra time is their wait. A collective counts when
// the wait is at least 1 ms and at least half the late rank's own time; a rank is named when it is
// the late one in at least 3 such collectives and in 75% or more of them (one slow start-up
// collective or noise spread over ranks names nobody). Verbose records of one host add when the
// host saw each rank's kernel start (its spread is the arrival skew); coll_start_ts is when the
// host enqueued the call, which runs ahead of the GPU, so it is not used. Not priced: the
// records have no step boundaries; the wait is given as a share of the time recorded.
#include <algorithm>
#include <map>

#include "analysis/catalogue.h"
#include "analysis/inspector_analyzers.h"
#include "analysis/inspector_log_join.h"
#include "analysis/inspector_match.h"
#include "base/str_format.h"

namespace commdx::analysis {

namespace {

constexpr int64_t kMinWaitNs = 1'000'000;
constexpr size_t kMinLate = 3;
constexpr double kMinShare = 0.75;

bool Counts(const MatchedColl& m) {
  return m.late_rank >= 0 && m.wait_ns >= kMinWaitNs && 2 * m.wait_ns >= m.transfer_ns;
}

struct LateStats {
  size_t count = 0;
  int64_t wait_ns = 0;  // summed longest waits
  int64_t worst_wait_ns = 0;
  const MatchedColl* worst = nullptr;
  std::vector<int64_t> start_skews_ns;  // verbose, one host: kernel-start spread where it agrees
};

// The span the records cover on the rank that waited longest: first to last dump pass.
double SpanNs(const InspectorComm& c) {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const MatchedColl& m : c.colls)
    for (const InspectorRecord* r : m.ranks) {
      if (r->dump_ns <= 0) continue;
      lo = std::min(lo, r->dump_ns - r->exec_ns);
      hi = std::max(hi, r->dump_ns);
    }
  return hi > lo ? static_cast<double>(hi - lo) : 0;
}

std::string Who(const MatchedColl& m, int rank) {
  for (const InspectorRecord* r : m.ranks)
    if (r->rank == rank)
      return StrFormat("rank %d (pid %lld on %s)", rank, static_cast<long long>(r->pid),
                       r->hostname.empty() ? "?" : r->hostname.c_str());
  return StrFormat("rank %d", rank);
}

const InspectorRecord* RecordOf(const MatchedColl& m, int rank) {
  for (const InspectorRecord* r : m.ranks)
    if (r->rank == rank) return r;
  return nullptr;
}

Finding Name(const InspectorComm& c, int rank, const LateStats& s, size_t counted, size_t matched,
             const InspectorLogJoin& join) {
  Finding f = NewFinding("inspector.late_rank");
  f.rank = rank;
  const MatchedColl& w = *s.worst;
  const InspectorRecord* late = RecordOf(w, rank);
  std::string who = Who(w, rank);
  f.title = StrFormat(
      "%s is late: the other ranks of communicator %s wait for it in %zu of %zu "
      "collectives (up to %.1f ms)",
      who.c_str(), InspectorCommLabel(c).c_str(), s.count, matched, w.wait_ns / 1e6);
  double span = SpanNs(c);
  std::string share = span > 0 ? StrFormat(" over the %.2f s recorded (%.1f%% of it)", span / 1e9,
                                           100.0 * s.wait_ns / span)
                               : "";
  f.detail = StrFormat(
      "NCCL's Inspector plugin timed each collective on every rank. In %zu of the %zu collectives "
      "matched across all %d ranks (by function and coll_sn) the others waited at least 1 ms for "
      "one rank; "
      "%s was that rank in %zu of them. The waits add up to %.1f ms%s; the worst is %s #%llu "
      "(%llu bytes): %.1f ms of wait beside %.1f ms of transfer on the late rank. A rank that "
      "reaches collectives late is slow before them (its own compute, data loading, a host "
      "stall, a slower GPU), not in the network.",
      counted, matched, c.n_ranks, who.c_str(), s.count, s.wait_ns / 1e6, share.c_str(),
      w.first->coll.c_str(), static_cast<unsigned long long>(w.first->coll_sn),
      static_cast<unsigned long long>(w.first->msg_bytes), w.wait_ns / 1e6, w.transfer_ns / 1e6);
  if (!s.start_skews_ns.empty()) {
    std::vector<int64_t> v = s.start_skews_ns;
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    f.detail += StrFormat(
        " The verbose records agree: in %zu of those collectives the host saw %s's kernel start "
        "last, by a median %.1f ms (one host, one clock).",
        s.start_skews_ns.size(), who.c_str(), v[v.size() / 2] / 1e6);
    f.metrics.push_back(
        {"median_kernel_start_skew", static_cast<double>(v[v.size() / 2]), Unit::kNs});
  }
  bool verbose = std::any_of(w.ranks.begin(), w.ranks.end(),
                             [](const InspectorRecord* r) { return r->verbose; });
  if (verbose && !c.one_host)
    f.detail +=
        " The verbose records' kernel-start times are not compared: the ranks are on "
        "different hosts, whose clocks are only as close as NTP keeps them.";
  std::vector<EvidenceRef> log_refs;
  f.detail += DescribeJoinedRank(join, c.id, rank, log_refs);
  f.detail +=
      " Not priced per step: the Inspector records carry no step boundaries; a profiler "
      "trace of the same job prices it (trace.arrival_skew).";
  f.fix =
      "Find what this rank does before its collectives that the others do not: profile it "
      "(torch.profiler on that rank), compare its data loading and host stalls, check its "
      "GPU's clocks and health (nvidia-smi -q -d PERFORMANCE).";
  f.metrics.push_back({"late_collectives", static_cast<double>(s.count), Unit::kCount});
  f.metrics.push_back({"collectives_matched", static_cast<double>(matched), Unit::kCount});
  f.metrics.push_back({"wait_total", static_cast<double>(s.wait_ns), Unit::kNs});
  f.metrics.push_back({"worst_wait", static_cast<double>(w.wait_ns), Unit::kNs});
  if (span > 0) f.metrics.push_back({"wait_share", s.wait_ns / span, Unit::kRatio});
  if (late)
    f.refs.push_back(
        {late->where, "late rank's record: " + late->coll + " #" + std::to_string(late->coll_sn)});
  for (const InspectorRecord* r : w.ranks)
    if (r->rank != rank && r->exec_ns == w.transfer_ns + w.wait_ns) {
      f.refs.push_back({r->where, StrFormat("rank %d waited: %.1f ms in the kernel", r->rank,
                                            r->exec_ns / 1e6)});
      break;
    }
  f.refs.insert(f.refs.end(), log_refs.begin(), log_refs.end());
  f.confidence = s.start_skews_ns.empty() ? 0.7 : 0.85;
  return f;
}

}  // namespace

std::vector<Finding> FindInspectorLateRank(const Job& job, const Options&) {
  std::vector<Finding> out;
  if (job.inspector.empty()) return out;
  for (const InspectorComm& c : MatchInspector(job.inspector)) {
    std::map<int, LateStats> by_rank;
    size_t matched = 0, counted = 0;
    for (const MatchedColl& m : c.colls) {
      if (m.late_rank < 0) continue;
      ++matched;
      if (!Counts(m)) continue;
      ++counted;
      LateStats& s = by_rank[m.late_rank];
      ++s.count;
      s.wait_ns += m.wait_ns;
      if (!s.worst || m.wait_ns > s.worst_wait_ns) s.worst = &m, s.worst_wait_ns = m.wait_ns;
      if (m.kernel_start_late_rank == m.late_rank)
        s.start_skews_ns.push_back(m.kernel_start_skew_ns);
    }
    for (const auto& [rank, s] : by_rank) {
      if (s.count < kMinLate || s.count < kMinShare * counted) continue;
      out.push_back(Name(c, rank, s, counted, matched, JoinInspectorComm(job.nccl, c.id)));
    }
  }
  return out;
}

}  // namespace commdx::analysis
