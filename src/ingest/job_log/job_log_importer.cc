// Watchdog lines (PyTorch 1.8 - 2.11; text from ProcessGroupNCCL.cpp), found by searching the
// whole file for their fixed words rather than splitting every line (parse speed,
// docs/measurements/hang-inputs.md):
//
//   [rank0]:[E626 06:24:44.159932949 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught
//     collective operation timeout: WorkNCCL(SeqNum=808, OpType=ALLREDUCE, NumelIn=9801523,
//     NumelOut=9801523, Timeout(ms)=600000) ran for 600030 milliseconds before timing out.
//   [E ProcessGroupNCCL.cpp:458] [Rank 7] Watchdog caught collective operation timeout:
//     WorkNCCL(SeqNum=64088, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 25625251
//     milliseconds before timing out.                                         (<= 2.1)
//   [rank0]:[E626 ...] [PG ID 0 PG GUID 0(default_pg) Rank 0] Exception (either an error or
//     timeout) detected by watchdog at work: 808, last enqueued NCCL work: 811, last completed
//     NCCL work: 807.
//   [rank4]:[E318 ...] [PG ID 2 PG GUID 9 Rank 4] Timeout at NCCL work: 610, last enqueued NCCL
//     work: 616, last completed NCCL work: 609.
//   [rank0]:[E1201 ...] [PG ID 0 PG GUID 0 Rank 0]  failure detected by watchdog at work
//     sequence id: 8 PG status: last enqueued work: 8, last completed work: 7  (2.6 - 2.11)
// Each is read from its logical line (job_log_unwrap.h): a console or a mail may have wrapped it,
//   [PG ID 0 PG GUID 0(default_pg) Rank 1] ... [Rank 1] Watchdog caught collective opera
//   tion timeout: WorkNCCL(SeqNum=4, OpType=BROADCAST, ...) ran for 1800010 milliseconds before ti
//   ming out.
#include "ingest/job_log/job_log_importer.h"

#include <algorithm>
#include <utility>

#include "base/text.h"
#include "ingest/job_log/job_log_debug.h"
#include "ingest/job_log/job_log_events.h"
#include "ingest/job_log/job_log_setup.h"
#include "ingest/job_log/job_log_state.h"
#include "ingest/job_log/job_log_text.h"
#include "ingest/job_log/job_log_unwrap.h"
#include "ingest/job_merge.h"

namespace commdx::ingest {

namespace {

using job_log::FindFrom;
using job_log::LineCounter;
using job_log::LogicalLine;
using job_log::NumberAfter;

constexpr std::string_view kSqTimeout = "Watchdogcaughtcollectiveoperationtimeout:WorkNCCL(";

bool TimeoutDone(std::string_view sq) {
  return sq.find("beforetimingout") != std::string_view::npos;
}

// "last completed NCCL work: 1579." / "last completed work: 7": the number has ended.
bool StatusDone(std::string_view sq) {
  size_t at = sq.find("lastcompleted");
  if (at == std::string_view::npos) return false;
  size_t w = sq.find("work:", at);
  if (w == std::string_view::npos) return false;
  size_t i = w + 5, digits = 0;
  while (i < sq.size() && sq[i] >= '0' && sq[i] <= '9') ++i, ++digits;
  return digits > 0 && i < sq.size();
}

std::string SqField(std::string_view s, std::string_view key) {
  size_t at = s.find(key);
  if (at == std::string_view::npos) return {};
  std::string_view v = s.substr(at + key.size());
  return std::string(v.substr(0, v.find_first_of(",)")));
}

void ReadTimeouts(const FileText& f, JobLogFacts& out, Diagnostics& quality,
                  job_log::FileState& state) {
  auto& seen = state.timeouts;  // repeats in what():
  LineCounter lines(f);
  // A wrapped line may split any one of these pieces, never all of them.
  for (const LogicalLine& l : job_log::RecordsWith(
           f.data, {"Watchdog caught", "operation timeout", "before timing out"}, &TimeoutDone)) {
    for (size_t at = l.squeezed.find(kSqTimeout); at != std::string::npos;
         at = l.squeezed.find(kSqTimeout, at + kSqTimeout.size())) {
      std::string_view work = std::string_view(l.squeezed).substr(at + kSqTimeout.size());
      WatchdogTimeout t;
      std::string_view head = std::string_view(l.squeezed).substr(0, at);
      t.rank = job_log::SqRankOf(head, true);
      std::string desc;
      job_log::SqPgOf(head, t.pg, desc);
      t.pg_guid = job_log::SqPgGuidOf(head);
      t.seq = NumberAfter(work, "SeqNum=");
      t.op = SqField(work, "OpType=");
      t.numel_in = NumberAfter(work, "NumelIn=");
      t.numel_out = NumberAfter(work, "NumelOut=");
      t.timeout_ms = NumberAfter(work, "Timeout(ms)=");
      t.ran_ms = NumberAfter(work, ")ranfor");
      if (t.op.empty() || (!TimeoutDone(work) && t.timeout_ms < 0)) {
        quality.Add("job_log.cut_watchdog_line", DiagSeverity::kWarning,
                    "a watchdog timeout line ends before its collective's OpType and "
                    "Timeout(ms) (cut or truncated): skipped",
                    lines.At(f.path, l.start));
        continue;
      }
      if (!seen.insert({t.rank, t.seq, t.op, t.ran_ms}).second) continue;
      t.loc = lines.At(f.path, l.start);
      t.line = l.text.substr(0, 400);
      out.timeouts.push_back(std::move(t));
    }
  }
}

void ReadStatuses(const FileText& f, JobLogFacts& out, job_log::FileState& state) {
  auto& seen = state.statuses;
  LineCounter lines(f);
  for (const LogicalLine& l :
       job_log::RecordsWith(f.data, {"last enqueued ", "last completed"}, &StatusDone)) {
    std::string_view sq = l.squeezed;
    if (sq.find("lastenqueued") == std::string_view::npos) continue;
    if (sq.find("ProcessGroupNCCL") == std::string_view::npos &&
        sq.find("watchdog") == std::string_view::npos)
      continue;
    WatchdogStatus s;
    s.rank = job_log::SqRankOf(sq, true);
    s.failed_seq = NumberAfter(sq, "worksequenceid:");
    if (s.failed_seq < 0) s.failed_seq = NumberAfter(sq, "watchdogatwork:");
    if (s.failed_seq < 0) {
      s.failed_seq = NumberAfter(sq, "TimeoutatNCCLwork:");
      s.timed_out = s.failed_seq >= 0;
    }
    s.last_enqueued = NumberAfter(sq, "lastenqueuedNCCLwork:");
    if (s.last_enqueued < 0) s.last_enqueued = NumberAfter(sq, "lastenqueuedwork:");
    s.last_completed = NumberAfter(sq, "lastcompletedNCCLwork:");
    if (s.last_completed < 0) s.last_completed = NumberAfter(sq, "lastcompletedwork:");
    job_log::SqPgOf(sq, s.pg, s.pg_desc);
    s.pg_guid = job_log::SqPgGuidOf(sq);
    if (s.last_enqueued < 0) continue;
    if (!seen.insert({s.rank, s.pg, s.failed_seq}).second) continue;
    s.loc = lines.At(f.path, l.start);
    s.line = l.text.substr(0, 400);
    out.statuses.push_back(std::move(s));
  }
}

}  // namespace

bool SniffJobLog(std::string_view head) {
  return Contains(head, "ProcessGroupNCCL") || Contains(head, "WorkNCCL(") ||
         Contains(head, "Heartbeat monitor timed out") ||
         Contains(head, "Terminating the process after attempting to dump debug info") ||
         Contains(head, "failed to pass monitoredBarrier") ||
         Contains(head, "Detected mismatch between collectives");
}

namespace {

// The facts of a text (a file, or a window of one) into `part`, read with what the text before
// it left in `state` (facts already taken, each rank's last collective); the file's process
// groups and DDP setups are completed in state.setup.
void ReadFacts(const FileText& text, job_log::FileState& state, Job& part) {
  ReadTimeouts(text, part.job_log, part.quality, state);
  ReadStatuses(text, part.job_log, state);
  job_log::ReadWatchdogEvents(text, part.job_log, part.quality, state);
  job_log::ReadBarrierTimeouts(text, part.job_log, state);
  job_log::ReadFingerprintMismatches(text, part.job_log, state);
  job_log::ReadProcessGroups(text, state);
  job_log::ReadDdp(text, state.setup);
}

// The file's process groups and DDP setups, once all its text is read, and the settings they
// printed as the job's environment.
void TakeSetup(job_log::FileState& state, Job& part) {
  part.job_log.process_groups = std::move(state.setup.process_groups);
  part.job_log.ddp = std::move(state.setup.ddp);
  state.setup = {};
  state.placed_at_options.clear();
  job_log::AddSettingsToEnv(part.job_log, part.env);
}

// A part merged into the job's facts (job_merge.h): a process group of a rank already known
// from another file is completed there, at a cost that does not grow with the files read before.
void MergeInto(Job&& part, Job& job) {
  JobMerge merge(job);
  merge.Add(std::move(part));
  merge.Finish();
}

// Window by window: each window's lines are read in file order with what the windows before left
// (job_log::FileState: facts taken, each rank's last collective, the process groups and DDP
// setups so far), so the facts are those of the file read whole. A record that may go on in the
// next window's first lines is held back and read at the start of the next window: one a
// terminal may have wrapped (its last lines are long: job_log::OpenTailStart), a DDP block not
// ended yet (job_log::OpenDdpBlockStart). Each line is read once. Cost: a copy of the window's
// text when lines are held back (one more window of memory), and the state, which grows with
// the ranks and the facts, not with the text.
class LogReader final : public WindowReader {
 public:
  explicit LogReader(Job& job) : job_(job) {}
  void Read(const FileText& window) override {
    const FileText* text = &window;
    if (!held_.empty()) {
      joined_.path = window.path;
      joined_.data.assign(held_);
      joined_.data.append(window.data);
      joined_.first_line = held_line_;
      joined_.first_offset = held_offset_;
      text = &joined_;
    }
    const size_t cut = std::min(job_log::OpenTailStart(text->data, kMaxHeldBytes),
                                job_log::OpenDdpBlockStart(text->data));
    const std::string_view kept = std::string_view(text->data).substr(0, cut);
    held_line_ =
        text->first_line + static_cast<uint64_t>(std::count(kept.begin(), kept.end(), '\n'));
    held_offset_ = text->first_offset + cut;
    held_.assign(text->data, cut);
    if (cut == text->data.size()) return ReadText(*text);
    if (text == &window) {
      joined_.path = window.path;
      joined_.data.assign(window.data, 0, cut);
      joined_.first_line = window.first_line;
      joined_.first_offset = window.first_offset;
    } else {
      joined_.data.resize(cut);
    }
    if (cut > 0) ReadText(joined_);
  }
  void Finish() override {
    if (!held_.empty()) {
      joined_.data = std::move(held_);
      joined_.first_line = held_line_;
      joined_.first_offset = held_offset_;
      held_.clear();
      ReadText(joined_);
    }
    Job part;
    TakeSetup(state_, part);
    MergeInto(std::move(part), job_);
  }

 private:
  // A record wrapped over more than this is no terminal's doing (16 lines of 4 KiB).
  static constexpr size_t kMaxHeldBytes = 64 * 1024;
  void ReadText(const FileText& text) {
    Job part;
    ReadFacts(text, state_, part);
    job_log::NoteLastRunning(text, state_);
    if (first_) part.job_log.files.push_back(text.path);
    first_ = false;
    MergeInto(std::move(part), job_);
  }
  Job& job_;
  job_log::FileState state_;
  bool first_ = true;
  FileText joined_;   // held lines and a window, or a window without its held lines
  std::string held_;  // the last lines of the text before, read with the next window
  uint64_t held_line_ = 1;
  uint64_t held_offset_ = 0;
};

}  // namespace

Status ParseJobLog(const FileText& file, Job& job) {
  job_log::FileState state;
  Job part;
  ReadFacts(file, state, part);
  TakeSetup(state, part);
  part.job_log.files.push_back(file.path);
  MergeInto(std::move(part), job);
  return Ok{};
}

std::unique_ptr<WindowReader> JobLogWindows(const std::string&, Job& job) {
  return std::make_unique<LogReader>(job);
}

}  // namespace commdx::ingest
