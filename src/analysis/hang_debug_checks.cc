// hang.rank_behind and hang.desync from the checks TORCH_DISTRIBUTED_DEBUG=DETAIL runs before
// every collective (ProcessGroupWrapper): a monitored barrier that some ranks never reached
// names them, and a fingerprint mismatch names two ranks entering different collectives at the
// same sequence number. PyTorch raises these in Python before NCCL is called, so the job dies
// with a RuntimeError instead of hanging: there is no watchdog timeout or Flight Recorder dump
// to read, and these lines are the whole answer.
#include "analysis/catalogue.h"
#include "analysis/hang_analyzers.h"
#include "base/str_format.h"

namespace commdx::analysis {

namespace {

std::string Describe(const CollectiveFingerprint& fp) {
  std::string s = fp.op;
  if (!fp.shape.empty()) s += " " + fp.shape;
  if (!fp.dtype.empty()) s += " " + fp.dtype;
  return s;
}

std::string RankList(const std::vector<int>& ranks) {
  std::string s;
  for (int r : ranks) s += (s.empty() ? "" : ", ") + std::to_string(r);
  return s;
}

Finding FromBarrier(const BarrierTimeout& b) {
  Finding f = NewFinding("hang.rank_behind");
  f.severity = Severity::kError;
  f.rank = b.missing.front();
  const bool known = b.entering.seq >= 0;
  f.title = StrFormat("Rank%s %s never reached %s that rank %d entered (monitored barrier, %lld ms)",
                      b.missing.size() > 1 ? "s" : "", RankList(b.missing).c_str(),
                      known ? StrFormat("collective #%lld (%s)",
                                        static_cast<long long>(b.entering.seq + 1),
                                        Describe(b.entering).c_str())
                                  .c_str()
                            : "the collective",
                      b.rank, static_cast<long long>(b.waited_ms));
  f.detail =
      "TORCH_DISTRIBUTED_DEBUG=DETAIL puts a barrier in front of every collective; rank " +
      std::to_string(b.rank) + " waited there and these ranks never arrived, so they never "
      "issued the collective (the job stopped with a RuntimeError, not a hang)." +
      (known ? " Collective numbers count from 1, as the watchdog's SeqNum does "
               "(the wrapper's SequenceNumber is one less)."
             : "");
  f.fix = "Find what rank " + std::to_string(b.missing.front()) +
          " did instead of this collective: its own traceback or last lines, a rank-dependent "
          "branch, an exception swallowed, a data wait longer than the barrier's timeout.";
  f.metrics.push_back({"ranks_missing", static_cast<double>(b.missing.size()), Unit::kRanks});
  if (known) f.metrics.push_back({"seq", static_cast<double>(b.entering.seq + 1), Unit::kCount});
  f.refs.push_back({b.loc, b.line});
  return f;
}

Finding FromMismatch(const FingerprintMismatch& m) {
  Finding f = NewFinding("hang.desync");
  f.severity = Severity::kError;
  f.title = StrFormat("Ranks %d and %d entered different collectives at #%lld: %s vs %s", m.a.rank,
                      m.b.rank, static_cast<long long>(m.a.seq + 1), Describe(m.a).c_str(),
                      Describe(m.b).c_str());
  f.detail =
      "TORCH_DISTRIBUTED_DEBUG=DETAIL compares each collective's fingerprint across ranks "
      "before running it; these two disagree (" +
      (m.aspects.empty() ? std::string("see the line") : m.aspects) +
      "). Without the check NCCL would have run mismatched collectives: a hang or wrong data.";
  f.fix =
      "Make every rank issue the same collectives in the same order with the same shapes: look "
      "for rank-dependent branches, ranks that skip a step, or tensors whose shape depends on "
      "the rank's data.";
  f.metrics.push_back({"seq", static_cast<double>(m.a.seq + 1), Unit::kCount});
  f.refs.push_back({m.loc, m.line});
  return f;
}

}  // namespace

std::vector<Finding> FindDebugCheckHang(const Job& job, const Options&) {
  std::vector<Finding> out;
  for (const auto& b : job.job_log.barrier_timeouts) out.push_back(FromBarrier(b));
  for (const auto& m : job.job_log.mismatches) out.push_back(FromMismatch(m));
  return out;
}

}  // namespace commdx::analysis
