// Watchdog lines (PyTorch 1.8 - 2.11; text from ProcessGroupNCCL.cpp), found by searching the
// whole file for their fixed words rather than splitting every line (parse speed, DESIGN §8):
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
//     sequence id: 8 PG status: last enqueued work: 8, last completed work: 7       (2.11)
#include "ingest/job_log/job_log_importer.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "base/text.h"

namespace commdx::ingest {

namespace {

constexpr std::string_view kTimeout = "Watchdog caught collective operation timeout: WorkNCCL(";
constexpr std::string_view kEnqueued = "last enqueued ";

std::string_view LineAround(std::string_view data, size_t at, size_t& start) {
  start = data.rfind('\n', at);
  start = start == std::string_view::npos ? 0 : start + 1;
  size_t end = data.find('\n', at);
  std::string_view line = data.substr(start, end == std::string_view::npos ? end : end - start);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

// The integer after the first `key` in s; -1 if none.
int64_t NumberAfter(std::string_view s, std::string_view key) {
  size_t at = s.find(key);
  if (at == std::string_view::npos) return -1;
  std::string_view rest = s.substr(at + key.size());
  auto v = ConsumeInt(rest);
  return v && *v >= 0 ? *v : -1;
}

// "[Rank 3]" / "Rank 3]" inside PyTorch's own prefix, else the launcher's "[rank3]:".
int RankOf(std::string_view line) {
  int64_t r = NumberAfter(line, " Rank ");
  if (r < 0) r = NumberAfter(line, "[Rank ");
  if (r < 0) r = NumberAfter(line, "[rank");
  return r >= 0 && r < (1 << 24) ? static_cast<int>(r) : -1;
}

// Line numbers for matches found in increasing offset order: one pass over the file in all.
class LineCounter {
 public:
  explicit LineCounter(std::string_view data) : data_(data) {}
  SourceLoc At(const std::string& path, size_t start) {
    if (start < pos_) pos_ = 0, line_ = 1;
    line_ +=
        static_cast<uint32_t>(std::count(data_.begin() + static_cast<std::ptrdiff_t>(pos_),
                                         data_.begin() + static_cast<std::ptrdiff_t>(start), '\n'));
    pos_ = start;
    SourceLoc loc{path};
    loc.line = line_;
    loc.offset = start;
    loc.has_offset = true;
    return loc;
  }

 private:
  std::string_view data_;
  size_t pos_ = 0;
  uint32_t line_ = 1;
};

void ReadTimeouts(const FileText& f, JobLogFacts& out) {
  std::string_view data = f.data;
  std::set<std::tuple<int, int64_t, std::string, int64_t>> seen;  // repeats in what():
  LineCounter lines(data);
  for (size_t at = data.find(kTimeout); at != std::string_view::npos;
       at = data.find(kTimeout, at + kTimeout.size())) {
    size_t start = 0;
    std::string_view line = LineAround(data, at, start);
    std::string_view work = line.substr(at - start + kTimeout.size());
    WatchdogTimeout t;
    t.rank = RankOf(line.substr(0, at - start));
    t.seq = NumberAfter(work, "SeqNum=");
    std::string_view op = work.substr(std::min(work.size(), work.find("OpType=") + 7));
    t.op = std::string(op.substr(0, op.find_first_of(",)")));
    t.numel_in = NumberAfter(work, "NumelIn=");
    t.numel_out = NumberAfter(work, "NumelOut=");
    t.timeout_ms = NumberAfter(work, "Timeout(ms)=");
    t.ran_ms = NumberAfter(work, ") ran for ");
    if (work.find("OpType=") == std::string_view::npos) continue;  // cut mid-line
    if (!seen.insert({t.rank, t.seq, t.op, t.ran_ms}).second) continue;
    t.loc = lines.At(f.path, start);
    t.line = std::string(Trim(line).substr(0, 400));
    out.timeouts.push_back(std::move(t));
  }
}

void ReadStatuses(const FileText& f, JobLogFacts& out) {
  std::string_view data = f.data;
  std::set<std::tuple<int, std::string, int64_t>> seen;
  LineCounter lines(data);
  for (size_t at = data.find(kEnqueued); at != std::string_view::npos;
       at = data.find(kEnqueued, at + kEnqueued.size())) {
    size_t start = 0;
    std::string_view line = LineAround(data, at, start);
    if (line.find("ProcessGroupNCCL") == std::string_view::npos &&
        line.find("watchdog") == std::string_view::npos)
      continue;
    WatchdogStatus s;
    s.rank = RankOf(line);
    s.failed_seq = NumberAfter(line, "work sequence id: ");
    if (s.failed_seq < 0) s.failed_seq = NumberAfter(line, "watchdog at work: ");
    if (s.failed_seq < 0) s.failed_seq = NumberAfter(line, "Timeout at NCCL work: ");
    s.last_enqueued = NumberAfter(line, "last enqueued NCCL work: ");
    if (s.last_enqueued < 0) s.last_enqueued = NumberAfter(line, "last enqueued work: ");
    s.last_completed = NumberAfter(line, "last completed NCCL work: ");
    if (s.last_completed < 0) s.last_completed = NumberAfter(line, "last completed work: ");
    int64_t pg = NumberAfter(line, "[PG ID ");
    if (pg < 0) pg = NumberAfter(line, "[PG ");
    if (pg >= 0) s.pg = std::to_string(pg);
    if (size_t p = line.find("GUID "); p != std::string_view::npos) {
      std::string_view g = line.substr(p);
      size_t open = g.find('('), close = g.find(')');
      if (open < close && close < g.find(']'))
        s.pg_desc = std::string(g.substr(open + 1, close - open - 1));
    }
    if (s.last_enqueued < 0) continue;
    if (!seen.insert({s.rank, s.pg, s.failed_seq}).second) continue;
    s.loc = lines.At(f.path, start);
    s.line = std::string(Trim(line).substr(0, 400));
    out.statuses.push_back(std::move(s));
  }
}

}  // namespace

bool SniffJobLog(std::string_view head) {
  return Contains(head, "ProcessGroupNCCL") || Contains(head, "WorkNCCL(");
}

Status ParseJobLog(const FileText& file, Job& job) {
  ReadTimeouts(file, job.job_log);
  ReadStatuses(file, job.job_log);
  job.job_log.files.push_back(file.path);
  return Ok{};
}

}  // namespace commdx::ingest
