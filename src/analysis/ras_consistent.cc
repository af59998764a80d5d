// ras.consistent_hang: a job that timed out or was torn down by PyTorch's watchdog while NCCL's
// RAS, queried on it, found every process alive and every communicator consistent (RUNNING, no
// error, no missing or dead rank, the same collective counts). RAS counts the collectives each
// rank launched into NCCL: a rank that skipped one or stopped would show as MISMATCH, missing or
// dead (ras_ranks.cc). So the usual hang — one rank never calling the collective — is ruled
// out; what is left is a collective every rank launched that did not finish: work queued before
// it on the GPU that never ends or takes longer than the timeout, or a stuck transfer.
// docs/findings/ras.md.
#include "analysis/catalogue.h"
#include "analysis/hang_analyzers.h"
#include "analysis/ras_analyzers.h"
#include "base/str_format.h"

namespace commdx::analysis {

namespace {

bool Consistent(const RasReport& r) {
  if (r.comms.empty() || !r.dead_processes.empty() || !r.incomplete_processes.empty())
    return false;
  for (const RasComm& c : r.comms) {
    if (!c.missing.empty()) return false;
    if (!c.status.empty() && c.status != "RUNNING") return false;
    if (!c.errors.empty() && c.errors != "OK") return false;
    int64_t count = -1;
    for (const RasRank& k : c.ranks) {
      if (k.dead || k.unresponsive || k.error) return false;
      if (k.collectives < 0) continue;
      if (count >= 0 && k.collectives != count) return false;
      count = k.collectives;
    }
  }
  return true;
}

bool MonitorLostAPeer(const RasReport& r) {
  for (const RasEvent& e : r.events)
    if (e.Lost()) return true;
  return false;
}

// What says the job hung: the watchdog's timeout or work status, its teardown or heartbeat lines.
const SourceLoc* HangEvidence(const Job& job, std::string& what) {
  for (const auto& t : job.job_log.timeouts) {
    what = "watchdog timeout";
    return &t.loc;
  }
  for (const auto& s : job.job_log.statuses)
    if (s.failed_seq >= 0) {
      what = "watchdog work status of a failed work";
      return &s.loc;
    }
  for (const auto& e : job.job_log.watchdog_events) {
    what = "watchdog teardown";
    return &e.loc;
  }
  return nullptr;
}

}  // namespace

std::vector<Finding> FindRasConsistentHang(const Job& job, const Options&) {
  std::string hang;
  const SourceLoc* where = HangEvidence(job, hang);
  if (!where) return {};
  const RasReport* ok = nullptr;
  for (const RasReport& r : job.ras) {
    if (r.monitor) {  // events only: a lost process says more; none says nothing either way
      if (MonitorLostAPeer(r)) return {};
      continue;
    }
    if (!Consistent(r)) return {};  // a report with a missing, dead or behind rank says more
    if (!ok) ok = &r;
  }
  if (!ok) return {};
  Finding f = NewFinding("ras.consistent_hang");
  f.title = StrFormat(
      "NCCL's RAS saw every rank alive and in step (%zu communicator group(s), no missing, "
      "dead or behind rank) while the job's watchdog gave up: every rank launched the collective",
      ok->comms.size());
  f.detail =
      "RAS counts the collectives each rank has launched into NCCL and checks that every "
      "process answers: a rank that skipped the collective, stopped or died would show as "
      "MISMATCH, missing or dead. None did, so the hang is not a rank that never called it. What "
      "is left: work queued before the collective on the GPU that never finishes or takes longer "
      "than the timeout (a hung or very long kernel, a device-side wait), or a transfer NCCL "
      "started and that does not complete (network, a peer's GPU). If RAS was queried before "
      "the collective was issued, or after the job recovered, query it again while it hangs.";
  f.fix =
      "While it hangs: py-spy dump --native on the ranks and `nvidia-smi` (is the GPU busy, in "
      "which kernel?); a Flight Recorder dump (TORCH_NCCL_TRACE_BUFFER_SIZE=2000, "
      "TORCH_NCCL_DUMP_ON_TIMEOUT=1) shows whether the collective started on every rank; the "
      "NCCL log's WARN lines and the NICs' counters for a stuck transfer.";
  f.refs.push_back({*where, "job log: " + hang});
  f.refs.push_back({ok->comms.front().where.file.empty() ? SourceLoc{ok->path}
                                                          : ok->comms.front().where,
                    "RAS: every communicator RUNNING, OK"});
  f.confidence = 0.7;
  return {std::move(f)};
}

}  // namespace commdx::analysis
