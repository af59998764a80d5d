// hang.rank_behind and hang.desync from the checks TORCH_DISTRIBUTED_DEBUG=DETAIL runs before
// every collective (ProcessGroupWrapper): a monitored barrier that some ranks never reached
// names them, and a fingerprint mismatch names two ranks entering different collectives at the
// same sequence number. PyTorch raises these in Python before NCCL is called, so the job dies
// with a RuntimeError instead of hanging: there is no watchdog timeout or Flight Recorder dump
// to read, and these lines are the whole answer.
#include <algorithm>
#include <map>
#include <set>

#include "analysis/catalogue.h"
#include "analysis/hang_analyzers.h"
#include "analysis/hang_flight_util.h"
#include "base/str_format.h"
#include "base/text.h"

namespace commdx::analysis {

namespace {

std::string Describe(const CollectiveFingerprint& fp) {
  std::string s = fp.op;
  if (!fp.shape.empty()) s += " " + fp.shape;
  if (!fp.dtype.empty()) s += " " + fp.dtype;
  return s;
}

// The wrapper's SequenceNumber counts from 0, the watchdog's SeqNum and Flight Recorder from 1
// (PyTorch reads the counter before the collective bumps it): commdx names collectives from 1
// and gives the number as the line printed it, so both can be found.
constexpr const char* kNumbering =
    " Collective numbers count from 1, as the watchdog's SeqNum does (the wrapper reads its "
    "SequenceNumber before the collective counts itself, so it is one less).";

std::string SeqPhrase(int64_t seq) {
  return StrFormat("#%lld (SequenceNumber=%lld in the log)", static_cast<long long>(seq + 1),
                   static_cast<long long>(seq));
}

Finding FromBarrier(const BarrierTimeout& b) {
  Finding f = NewFinding("hang.rank_behind");
  f.severity = Severity::kError;
  f.rank = b.missing.front();
  const bool known = b.entering.seq >= 0;
  f.title = StrFormat("Rank%s %s never reached %s that rank %s entered (monitored barrier, %s ms)",
                      b.missing.size() > 1 ? "s" : "", JoinInts(b.missing).c_str(),
                      known ? StrFormat("collective %s, %s", SeqPhrase(b.entering.seq).c_str(),
                                        Describe(b.entering).c_str())
                                  .c_str()
                            : "the collective",
                      NumOrUnknown(b.rank).c_str(), NumOrUnknown(b.waited_ms).c_str());
  f.detail =
      "TORCH_DISTRIBUTED_DEBUG=DETAIL puts a barrier in front of every collective; rank " +
      NumOrUnknown(b.rank) + " waited there and these ranks never arrived, so they never "
      "issued the collective (the job stopped with a RuntimeError, not a hang)." +
      (known ? kNumbering : "");
  f.fix = "Find what rank " + std::to_string(b.missing.front()) +
          " did instead of this collective: its own traceback or last lines, a rank-dependent "
          "branch, an exception swallowed, a data wait longer than the barrier's timeout.";
  f.metrics.push_back({"ranks_missing", static_cast<double>(b.missing.size()), Unit::kRanks});
  if (known) f.metrics.push_back({"seq", static_cast<double>(b.entering.seq + 1), Unit::kNone});
  f.refs.push_back({b.loc, b.line});
  return f;
}

// Every rank that raised or was named in a mismatch at one sequence number, by what it ran there.
// Each side raises it (rank 1 about rank 0, rank 0 about rank 1), and with N ranks the odd one
// out appears in up to N-1 lines: one finding per sequence number, the minority named.
Finding FromMismatches(int64_t seq, const std::vector<const FingerprintMismatch*>& lines) {
  std::map<std::string, std::set<int>> by_call;
  for (const auto* m : lines)
    for (const auto* fp : {&m->a, &m->b}) {
      if (fp->rank < 0) continue;
      by_call[Describe(*fp)].insert(fp->rank);
    }
  std::vector<std::pair<std::string, std::set<int>>> calls(by_call.begin(), by_call.end());
  std::sort(calls.begin(), calls.end(),
            [](const auto& x, const auto& y) { return x.second.size() > y.second.size(); });
  Finding f = NewFinding("hang.desync");
  f.severity = Severity::kError;
  std::string groups;
  for (const auto& [call, ranks] : calls) {
    std::vector<int> list(ranks.begin(), ranks.end());
    groups += (groups.empty() ? "" : "; ") + std::string(list.size() > 1 ? "ranks " : "rank ") +
              JoinInts(list) + ": " + call;
  }
  const bool odd_one = calls.size() >= 2 && calls.back().second.size() == 1 &&
                       calls.front().second.size() > 1;
  bool cut = true;  // every line ends before the other rank's fingerprint
  for (const auto* m : lines) cut = cut && m->cut;
  const std::string at = seq >= 0 ? "collective " + SeqPhrase(seq) : "an unnumbered collective";
  if (cut && calls.size() == 1) {
    std::vector<int> list(calls.front().second.begin(), calls.front().second.end());
    if (list.size() == 1) f.rank = list.front();
    f.title = StrFormat("Rank%s %s entered %s as %s, and another rank a different collective",
                        list.size() > 1 ? "s" : "", JoinInts(list).c_str(),
                        calls.front().first.c_str(), at.c_str());
  } else if (odd_one) {
    f.rank = *calls.back().second.begin();
    std::vector<int> others(calls.front().second.begin(), calls.front().second.end());
    f.title = StrFormat("Rank %d entered %s as %s where ranks %s entered %s", *f.rank,
                        calls.back().first.c_str(), at.c_str(), JoinInts(others).c_str(),
                        calls.front().first.c_str());
  } else {
    f.title =
        StrFormat("Ranks entered different collectives at %s: %s", at.c_str(), groups.c_str());
  }
  const std::string& aspects = lines.front()->aspects;
  f.detail =
      "TORCH_DISTRIBUTED_DEBUG=DETAIL compares each collective's fingerprint across ranks "
      "before running it; at this one they disagree (" +
      groups + (aspects.empty() ? std::string() : "; PyTorch: " + aspects) +
      "). Without the check NCCL would have run mismatched collectives: a hang or wrong data." +
      (cut ? " The line is cut after the first fingerprint: what the other rank entered is not "
             "in the file (the other ranks' logs, or the whole line, say)."
           : "") +
      (seq >= 0 ? kNumbering : "");
  f.fix =
      "Make every rank issue the same collectives in the same order with the same shapes: look "
      "for rank-dependent branches, ranks that skip a step, or tensors whose shape depends on "
      "the rank's data.";
  if (seq >= 0) f.metrics.push_back({"seq", static_cast<double>(seq + 1), Unit::kNone});
  size_t nranks = 0;
  for (const auto& c : calls) nranks += c.second.size();
  f.metrics.push_back({"ranks", static_cast<double>(nranks), Unit::kRanks});
  for (size_t i = 0; i < lines.size() && i < 3; ++i) f.refs.push_back({lines[i]->loc, lines[i]->line});
  return f;
}

}  // namespace

std::vector<Finding> FindDebugCheckHang(const Job& job, const Options&) {
  std::vector<Finding> out;
  for (const auto& b : job.job_log.barrier_timeouts) out.push_back(FromBarrier(b));
  std::map<int64_t, std::vector<const FingerprintMismatch*>> by_seq;
  for (const auto& m : job.job_log.mismatches) by_seq[m.a.seq].push_back(&m);
  for (const auto& [seq, lines] : by_seq) out.push_back(FromMismatches(seq, lines));
  return out;
}

}  // namespace commdx::analysis
