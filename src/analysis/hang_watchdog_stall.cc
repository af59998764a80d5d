// hang.watchdog_stuck from the heartbeat monitor's lines, and hang.watchdog_timeout from the
// teardown lines when the log holds no "Watchdog caught collective operation timeout" line of
// its own (an excerpt, or a log cut before it): either way the job hung and was killed, which
// must never read as a healthy run. docs/findings/hang.md says what each means.
#include <algorithm>
#include <set>

#include "analysis/catalogue.h"
#include "analysis/hang_analyzers.h"
#include "analysis/hang_flight_util.h"
#include "base/str_format.h"

namespace commdx::analysis {

namespace {

using K = WatchdogEventKind;

std::vector<int> Ranks(const std::vector<const WatchdogEvent*>& es) {
  std::set<int> s;
  for (const auto* e : es) s.insert(e->rank);
  return {s.begin(), s.end()};
}

void AddRefs(Finding& f, const std::vector<const WatchdogEvent*>& es) {
  for (const auto* e : es) {
    if (f.refs.size() >= 4) break;
    f.refs.push_back({e->loc, e->line});
  }
}

void FindStuck(const Job& job, const std::vector<const WatchdogEvent*>& stuck,
               const std::vector<const WatchdogEvent*>& killed, std::vector<Finding>& out) {
  if (stuck.empty()) return;
  std::vector<int> ranks = Ranks(stuck);
  int64_t stuck_s = -1;
  for (const auto* e : stuck) stuck_s = std::max(stuck_s, e->stuck_s);
  Finding f = NewFinding("hang.watchdog_stuck");
  if (ranks.size() == 1 && ranks[0] >= 0) f.rank = ranks[0];
  f.title = StrFormat(
      "PyTorch's heartbeat monitor found the NCCL watchdog stuck on %s (%s s without progress)%s",
      RanksPhrase(ranks).c_str(), NumOrUnknown(stuck_s).c_str(),
      killed.empty() ? "" : " and terminated the process");
  const bool after_timeout = !job.job_log.timeouts.empty();
  f.detail =
      "ProcessGroupNCCL's watchdog thread, which checks every queued collective, made no progress "
      "for the heartbeat timeout (TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC, 480 s by default; 600 s in "
      "PyTorch 2.3), so the monitor dumped what it could and killed the process: the job hung. " +
      std::string(after_timeout
                      ? "The log also shows a collective timeout: that came first; the watchdog "
                        "then got stuck tearing the job down (typically blocked in NCCL abort or "
                        "a CUDA call), so the cause is what made the collective time out."
                      : "No collective timeout is in the log: the watchdog itself was blocked, by "
                        "a CUDA or NCCL call that does not return (a hung GPU or transport, "
                        "cudaEventDestroy) or by another thread holding the GIL inside one.");
  f.fix =
      "Find what blocked: py-spy dump --native on a stuck rank shows the watchdog's stack; "
      "TORCH_NCCL_TRACE_BUFFER_SIZE=2000 with TORCH_NCCL_DUMP_ON_TIMEOUT=1 leaves Flight "
      "Recorder dumps. Raising TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC only helps when the wait was "
      "legitimately long (a long checkpoint on one rank while the others wait).";
  if (stuck_s >= 0) f.metrics.push_back({"stuck", static_cast<double>(stuck_s) * 1e9, Unit::kNs});
  f.metrics.push_back({"ranks", static_cast<double>(ranks.size()), Unit::kRanks});
  AddRefs(f, stuck);
  AddRefs(f, killed);
  out.push_back(std::move(f));
}

// Processes killed after a collective timeout whose "Watchdog caught" line is not in the log.
void FindKilledAfterTimeout(const Job& job, const std::vector<const WatchdogEvent*>& killed,
                            const std::vector<const WatchdogEvent*>& signals,
                            std::vector<Finding>& out) {
  // A work status naming the failed work makes the finding of hang_watchdog.cc.
  if (!job.job_log.timeouts.empty() || HasWorkFailureStatus(job) ||
      (killed.empty() && signals.empty()))
    return;
  std::set<int> origin;
  const WatchdogEvent* status = nullptr;
  for (const auto* e : signals) {
    if (e->from_self)
      origin.insert(e->rank);
    else if (e->from_rank >= 0)
      origin.insert(e->from_rank);
    if (!status && e->last_enqueued >= 0 && e->last_completed >= 0) status = e;
  }
  std::vector<int> ranks = Ranks(killed.empty() ? signals : killed);
  Finding f = NewFinding("hang.watchdog_timeout");
  std::vector<int> first(origin.begin(), origin.end());
  if (first.size() == 1 && first[0] >= 0) f.rank = first[0];
  f.title = killed.empty()
                ? StrFormat("A collective timed out, first seen on %s; debug info dumped on %s",
                            RanksPhrase(first).c_str(), RanksPhrase(ranks).c_str())
                : StrFormat("PyTorch terminated %s after a collective timeout or exception%s",
                            RanksPhrase(ranks).c_str(),
                            first.empty() ? "" : (" first seen on " + RanksPhrase(first)).c_str());
  f.title += " (which collective: unknown, no 'Watchdog caught' line in the log)";
  f.detail =
      "The process group's watchdog found a collective that did not finish within its timeout "
      "(or failed) and took the processes down after trying to dump debug info; the line naming "
      "the collective (\"Watchdog caught collective operation timeout: WorkNCCL(SeqNum=...)\") "
      "is not in this log.";
  if (status)
    f.detail +=
        StrFormat(" Rank %s's status: last enqueued work #%lld, last completed #%lld.",
                  NumOrUnknown(status->rank).c_str(), static_cast<long long>(status->last_enqueued),
                  static_cast<long long>(status->last_completed));
  f.fix =
      "Look at the log of the rank that timed out first for its 'Watchdog caught' line; a "
      "Flight Recorder dump (TORCH_NCCL_TRACE_BUFFER_SIZE=2000, TORCH_NCCL_DUMP_ON_TIMEOUT=1) "
      "names each rank's last collectives.";
  f.metrics.push_back({"ranks", static_cast<double>(ranks.size()), Unit::kRanks});
  AddRefs(f, signals);
  AddRefs(f, killed);
  out.push_back(std::move(f));
}

}  // namespace

std::vector<Finding> FindWatchdogStall(const Job& job, const Options&) {
  std::vector<const WatchdogEvent*> stuck, killed_hang, killed_timeout, signals;
  for (const auto& e : job.job_log.watchdog_events) {
    switch (e.kind) {
      case K::kStuck:
      case K::kHeartbeatTimeout:
        stuck.push_back(&e);
        break;
      case K::kTerminating:
        (e.reason.find("watchdog hang") != std::string::npos ? killed_hang : killed_timeout)
            .push_back(&e);
        break;
      case K::kDumpSignal:
        signals.push_back(&e);
        break;
    }
  }
  // "Terminating ... due to ProcessGroupNCCL watchdog hang" without the monitor's own line
  // (an excerpt) is the same stall.
  if (stuck.empty()) stuck = killed_hang;
  std::vector<Finding> out;
  FindStuck(job, stuck, killed_hang, out);
  FindKilledAfterTimeout(job, killed_timeout, signals, out);
  return out;
}

}  // namespace commdx::analysis
