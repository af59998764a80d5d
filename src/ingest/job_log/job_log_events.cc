// Heartbeat monitor and teardown lines (ProcessGroupNCCL.cpp, PyTorch 2.2 - 2.11), any backend
// that copied them (ProcessGroupHCCL, ...), read from their logical lines (job_log_unwrap.h):
//
//   [rank2]:[E1229 20:29:13.091296956 ProcessGroupNCCL.cpp:1484] [PG ID 0 PG GUID 0(default_pg)
//     Rank 2] ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in
//     monitoring enqueued collectives. This typically indicates a NCCL/CUDA API ...
//   [rank144]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 144] Heartbeat monitor timed out! Process
//     will be terminated after dumping debug info. workMetaList_.size()=1            (2.3 - 2.4)
//   [rank2]:[F1229 20:37:13.091528310 ProcessGroupNCCL.cpp:1306] [PG ID 0 PG GUID 0(default_pg)
//     Rank 2] [PG ID 0 PG GUID 0(default_pg) Rank 2] Terminating the process after attempting to
//     dump debug info, due to ProcessGroupNCCL watchdog hang.
//   [rank5]:[E723 01:58:45.667329643 ProcessGroupNCCL.cpp:1743] [PG ID 0 PG GUID 0(default_pg)
//     Rank 5] Received a dump signal due to a collective timeout from  rank 2 and we will try our
//     best to dump the debug info. Last enqueued NCCL work: 136, last completed NCCL work: 136.
//   [rank0]:[E327 17:04:16.182548526 ProcessGroupNCCL.cpp:1346] [PG 0 Rank 0] Received a timeout
//     signal from this local rank and will start to dump the debug info. Last enqueued NCCL work:
//     2, last completed NCCL work: 1.                                                      (2.3)
//   [rank1]:[E103 21:39:09.681913167 ProcessGroupNCCL.cpp:744] [Rank 1] Some NCCL operations
//     have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU
//     operations might run on corrupted/incomplete data.                          (2.6 - 2.11)
//   [rank1]:[E103 ...] [PG ID 0 PG GUID 0(default_pg) Rank 1] Process group watchdog thread
//     terminated with exception: [Rank 1] Watchdog caught collective operation timeo   (cut)
//   frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<...>) + 0x1d2 (0x15...
//     in .../libtorch_cuda.so)       (the exception's C++ stack, pasted without its message)
// The rank is the launcher's "[rank5]:" where printed: PyTorch's own "Rank 0" is the rank in
// the process group (xDiT#147: "[rank4]:... [PG 5 Rank 0]").
#include "ingest/job_log/job_log_events.h"

#include "ingest/job_log/job_log_text.h"
#include "ingest/job_log/job_log_unwrap.h"

namespace commdx::ingest::job_log {

namespace {

constexpr std::string_view kSqStuck = "watchdoggotstuckfor";
constexpr std::string_view kSqHeartbeat = "Heartbeatmonitortimedout!";
constexpr std::string_view kSqTerminating =
    "Terminatingtheprocessafterattemptingtodumpdebuginfo,dueto";
constexpr std::string_view kSqDumpSignal = "Receivedadumpsignalduetoacollectivetimeoutfrom";
constexpr std::string_view kSqTimeoutSignal = "Receivedatimeoutsignalfrom";
constexpr std::string_view kSqFailedOps = "SomeNCCLoperationshavefailedortimedout";
constexpr std::string_view kSqWatchdogThrew = "Processgroupwatchdogthreadterminatedwithexception";
// A frame of the C++ stack PyTorch prints with the watchdog's exception: a paste that kept only
// the frames ("frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(...) + 0x1d2 ...") still
// says a collective timed out.
constexpr std::string_view kSqCheckTimeoutFrame = "ProcessGroupNCCL::WorkNCCL::checkTimeout(";

bool HasNumberThen(std::string_view sq, size_t from, std::string_view then) {
  size_t i = from, digits = 0;
  while (i < sq.size() && sq[i] >= '0' && sq[i] <= '9') ++i, ++digits;
  return digits > 0 && sq.substr(i, then.size()) == then;
}

bool EventDone(std::string_view sq) {
  if (size_t at = sq.find(kSqStuck); at != std::string_view::npos)
    return HasNumberThen(sq, at + kSqStuck.size(), "seconds");
  if (size_t at = sq.find("workMetaList_.size()="); at != std::string_view::npos)
    return HasNumberThen(sq, at + 21, "");
  if (size_t at = sq.find(kSqTerminating); at != std::string_view::npos)
    return sq.find('.', at + kSqTerminating.size()) != std::string_view::npos;
  if (size_t at = sq.find(kSqFailedOps); at != std::string_view::npos)
    return sq.size() > at + kSqFailedOps.size();
  if (size_t at = sq.find(kSqWatchdogThrew); at != std::string_view::npos)
    return sq.find("beforetimingout", at) != std::string_view::npos ||
           sq.find("ncclCommWatchdog", at) != std::string_view::npos;
  if (sq.find(kSqCheckTimeoutFrame) != std::string_view::npos) return true;
  if (size_t at = sq.find("lastcompleted"); at != std::string_view::npos) {
    size_t w = sq.find("work:", at);
    return w != std::string_view::npos && HasNumberThen(sq, w + 5, ".");
  }
  return false;
}

// The reason after "due to", as PyTorch spells it (the squeezed text lost its spaces).
// A line cut inside the reason ("due to ProcessGroupNCCL") is read as the reason it begins.
std::string Reason(std::string_view sq_rest, std::string_view text) {
  std::string_view r = sq_rest.substr(0, sq_rest.find('.'));
  auto begins = [&](std::string_view full) { return !r.empty() && full.substr(0, r.size()) == r; };
  if (begins("ProcessGroupNCCLwatchdoghang")) return "ProcessGroupNCCL watchdog hang";
  if (begins("collectivetimeoutorexception")) return "collective timeout or exception";
  size_t at = text.find("due to ");
  if (at == std::string_view::npos) return std::string(r);
  std::string_view t = text.substr(at + 7);
  return std::string(t.substr(0, std::min(t.find('.'), size_t{120})));
}

}  // namespace

void ReadWatchdogEvents(const FileText& f, JobLogFacts& out, Diagnostics& quality,
                        FileState& state) {
  auto& seen = state.events;
  LineCounter lines(f);
  for (const LogicalLine& l :
       RecordsWith(f.data,
                   {"got stuck for", "Heartbeat monitor timed out", "attempting to dump debug info",
                    "Received a dump signal", "Received a timeout signal",
                    "operations have failed or timed out",
                    "watchdog thread terminated with exception", "WorkNCCL::checkTimeout("},
                   &EventDone)) {
    std::string_view sq = l.squeezed;
    WatchdogEvent e;
    size_t at = std::string_view::npos;
    if ((at = sq.find(kSqStuck)) != std::string_view::npos) {
      e.kind = WatchdogEventKind::kStuck;
      e.stuck_s = NumberAfter(sq.substr(at), kSqStuck);
    } else if ((at = sq.find(kSqHeartbeat)) != std::string_view::npos) {
      e.kind = WatchdogEventKind::kHeartbeatTimeout;
      e.pending_works = NumberAfter(sq.substr(at), "workMetaList_.size()=");
    } else if ((at = sq.find(kSqTerminating)) != std::string_view::npos) {
      e.kind = WatchdogEventKind::kTerminating;
      e.reason = Reason(sq.substr(at + kSqTerminating.size()), l.text);
    } else if ((at = sq.find(kSqFailedOps)) != std::string_view::npos) {
      e.kind = WatchdogEventKind::kTerminating;
      e.reason = "NCCL operations failed or timed out";
    } else if ((at = sq.find(kSqWatchdogThrew)) != std::string_view::npos) {
      // Read for itself only where the "Watchdog caught ... WorkNCCL(...)" it carries is cut
      // off (the importer reads whole ones as timeouts); then it still says the job timed out.
      if (sq.find("WorkNCCL(", at) != std::string_view::npos) continue;
      e.kind = WatchdogEventKind::kTerminating;
      e.reason = "watchdog thread terminated with exception";
    } else if ((at = sq.find(kSqCheckTimeoutFrame)) != std::string_view::npos) {
      e.kind = WatchdogEventKind::kTerminating;
      e.reason = "collective timeout (WorkNCCL::checkTimeout in the watchdog's stack)";
      at = 0;  // a frame has no rank prefix of its own
    } else if ((at = sq.find(kSqDumpSignal)) != std::string_view::npos ||
               (at = sq.find(kSqTimeoutSignal)) != std::string_view::npos) {
      e.kind = WatchdogEventKind::kDumpSignal;
      std::string_view from = sq.substr(at);
      from = from.substr(from.find("from") + 4);
      e.from_self = from.substr(0, 13) == "thislocalrank";
      if (!e.from_self && from.substr(0, 4) == "rank") {
        int64_t r = NumberAfter(from, "rank");
        e.from_rank = r >= 0 && r < (1 << 24) ? static_cast<int>(r) : -1;
      }
      e.last_enqueued = NumberAfter(sq, "LastenqueuedNCCLwork:");
      e.last_completed = NumberAfter(sq, "lastcompletedNCCLwork:");
    } else {
      continue;  // a probe in other text ("due to a collective timeout from" alone)
    }
    if (!EventDone(sq))
      quality.Add("job_log.cut_watchdog_line", DiagSeverity::kNote,
                  "a heartbeat-monitor or teardown line ends early (cut or truncated): read as far "
                  "as it goes",
                  lines.At(f.path, l.start));
    std::string_view head = sq.substr(0, at);
    e.rank = SqRankOf(head, true);
    SqPgOf(head, e.pg, e.pg_desc);
    int64_t key = e.stuck_s >= 0 ? e.stuck_s : e.pending_works >= 0 ? e.pending_works : e.from_rank;
    if (!seen.insert({static_cast<int>(e.kind), e.rank, e.pg, key, e.reason}).second) continue;
    e.loc = lines.At(f.path, l.start);
    e.line = l.text.substr(0, 400);
    out.watchdog_events.push_back(std::move(e));
  }
}

}  // namespace commdx::ingest::job_log
