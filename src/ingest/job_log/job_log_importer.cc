// Watchdog lines (PyTorch 1.8 - 2.11; text from ProcessGroupNCCL.cpp), found by searching the
// whole file for their fixed words rather than splitting every line (parse speed, docs/measurements/hang-inputs.md):
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
#include "ingest/job_log/job_log_debug.h"
#include "ingest/job_log/job_log_setup.h"
#include "ingest/job_log/job_log_text.h"

namespace commdx::ingest {

namespace {

using job_log::FindFrom;
using job_log::LineAround;
using job_log::LineCounter;
using job_log::NumberAfter;
using job_log::PgOf;
using job_log::RankOf;

constexpr std::string_view kTimeout = "Watchdog caught collective operation timeout: WorkNCCL(";
constexpr std::string_view kEnqueued = "last enqueued ";

void ReadTimeouts(const FileText& f, JobLogFacts& out) {
  std::string_view data = f.data;
  std::set<std::tuple<int, int64_t, std::string, int64_t>> seen;  // repeats in what():
  LineCounter lines(data);
  for (size_t at = FindFrom(data, kTimeout, 0); at != std::string_view::npos;
       at = FindFrom(data, kTimeout, at + kTimeout.size())) {
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
  for (size_t at = FindFrom(data, kEnqueued, 0); at != std::string_view::npos;
       at = FindFrom(data, kEnqueued, at + kEnqueued.size())) {
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
    PgOf(line, s.pg, s.pg_desc);
    if (s.last_enqueued < 0) continue;
    if (!seen.insert({s.rank, s.pg, s.failed_seq}).second) continue;
    s.loc = lines.At(f.path, start);
    s.line = std::string(Trim(line).substr(0, 400));
    out.statuses.push_back(std::move(s));
  }
}

}  // namespace

bool SniffJobLog(std::string_view head) {
  return Contains(head, "ProcessGroupNCCL") || Contains(head, "WorkNCCL(") ||
         Contains(head, "failed to pass monitoredBarrier") ||
         Contains(head, "Detected mismatch between collectives");
}

Status ParseJobLog(const FileText& file, Job& job) {
  ReadTimeouts(file, job.job_log);
  ReadStatuses(file, job.job_log);
  job_log::ReadBarrierTimeouts(file, job.job_log);
  job_log::ReadFingerprintMismatches(file, job.job_log);
  job_log::ReadProcessGroups(file, job.job_log);
  job_log::ReadDdp(file, job.job_log);
  job_log::AddSettingsToEnv(job.job_log, job.env);
  job.job_log.files.push_back(file.path);
  return Ok{};
}

}  // namespace commdx::ingest
