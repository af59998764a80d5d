// Job logs: PyTorch watchdog lines of the real 1xH200 timeout capture and of public threads
// (tests/data/hang), every PyTorch era's wording, and hang.watchdog_timeout / hang.rank_behind.
#include <gtest/gtest.h>

#include "analysis/hang_analyzers.h"
#include "base/file.h"
#include "ingest/flight_recorder/dump_reader.h"
#include "ingest/job_log/job_log_importer.h"

namespace commdx::analysis {
namespace {

FileText Data(const std::string& rel) {
  auto f = ReadFile(std::string(COMMDX_SOURCE_DIR) + "/tests/data/hang/" + rel);
  EXPECT_TRUE(f.has_value()) << rel;
  return f.has_value() ? f.value() : FileText{};
}

Job Parse(const std::string& rel) {
  FileText f = Data(rel);
  EXPECT_TRUE(ingest::SniffJobLog(f.data.substr(0, 65536))) << rel;
  Job job;
  EXPECT_TRUE(ingest::ParseJobLog(f, job).has_value());
  return job;
}

const Finding* Find(const std::vector<Finding>& fs, std::string_view id) {
  for (const auto& f : fs)
    if (f.id == id) return &f;
  return nullptr;
}

TEST(JobLog, RealTimeoutCaptureWithFlightRecorderFrames) {
  Job job = Parse("h200_timeout/job.log");
  // The timeout is printed three times (the watchdog, its exception, what()): one fact.
  ASSERT_EQ(job.job_log.timeouts.size(), 1u);
  const WatchdogTimeout& t = job.job_log.timeouts[0];
  EXPECT_EQ(t.rank, 0);
  EXPECT_EQ(t.seq, 8);
  EXPECT_EQ(t.op, "ALLREDUCE");
  EXPECT_EQ(t.numel_in, 1048576);
  EXPECT_EQ(t.timeout_ms, 5000);
  EXPECT_EQ(t.ran_ms, 5083);
  EXPECT_EQ(t.loc.line, 105u);
  ASSERT_FALSE(job.job_log.statuses.empty());
  EXPECT_EQ(job.job_log.statuses[0].failed_seq, 8);
  EXPECT_EQ(job.job_log.statuses[0].last_enqueued, 8);
  EXPECT_EQ(job.job_log.statuses[0].last_completed, 7);
  FileText fr = Data("h200_timeout/fr_dump_rank0");
  ASSERT_TRUE(ingest::ParseFlightRecorder(fr, job).has_value());
  auto fs = FindWatchdogHang(job, {});
  const Finding* w = Find(fs, "hang.watchdog_timeout");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->rank, 0);
  EXPECT_NE(w->title.find("ALLREDUCE #8 of 1048576 elements"), std::string::npos) << w->title;
  bool frame = false;
  for (const auto& r : w->refs) frame |= r.text.find("hang.py:95") != std::string::npos;
  EXPECT_TRUE(frame);
  EXPECT_EQ(Find(fs, "hang.rank_behind"), nullptr);  // it had enqueued #8
}

TEST(JobLog, HealthyCaptureHasNoTimeout) {
  Job job = Parse("h200_healthy/job.log");
  EXPECT_TRUE(job.job_log.timeouts.empty());
  EXPECT_TRUE(FindWatchdogHang(job, {}).empty());
}

TEST(JobLog, PublicThreadsEveryEra) {
  Job a = Parse("public/watchdog_basicsr737.log");
  EXPECT_EQ(a.job_log.timeouts.size(), 3u);
  ASSERT_EQ(a.job_log.statuses.size(), 2u);
  EXPECT_EQ(a.job_log.statuses[0].pg, "0");
  EXPECT_EQ(a.job_log.statuses[0].pg_desc, "default_pg");
  EXPECT_EQ(a.job_log.statuses[0].last_enqueued, 811);
  auto fs = FindWatchdogHang(a, {});
  ASSERT_NE(Find(fs, "hang.watchdog_timeout"), nullptr);
  EXPECT_NE(Find(fs, "hang.watchdog_timeout")->title.find("ranks 0,1,2"), std::string::npos);

  Job old = Parse("public/watchdog_pytorch118369_old.log");
  ASSERT_EQ(old.job_log.timeouts.size(), 3u);
  EXPECT_EQ(old.job_log.timeouts[2].rank, 7);
  EXPECT_EQ(old.job_log.timeouts[2].numel_in, -1);
  EXPECT_EQ(old.job_log.timeouts[2].ran_ms, 25625251);

  Job co = Parse("public/watchdog_diffsynth458_coalesced.log");
  // "detected by watchdog at work" and "Timeout at NCCL work" say the same: one fact.
  ASSERT_EQ(co.job_log.statuses.size(), 1u);
  EXPECT_EQ(co.job_log.statuses[0].failed_seq, 610);
  EXPECT_EQ(co.job_log.statuses[0].last_enqueued, 616);
  EXPECT_EQ(co.job_log.statuses[0].pg, "2");
  EXPECT_EQ(co.job_log.timeouts[0].op, "COALESCED");

  Job lf = Parse("public/watchdog_llamafactory7396.log");
  EXPECT_EQ(lf.job_log.statuses[0].pg, "1");
  EXPECT_EQ(lf.job_log.timeouts[1].rank, 4);
}

TEST(JobLog, DateStampedLinesOfSubGroupsKeepTheirGlobalRanks) {
  // NCCL issue 1610: a collector's date stamp starts every line (so no line continues another),
  // and "[Rank 1]" is the rank in a sub-group while "[rank13]:" is the global one.
  Job job = Parse("public/watchdog_nccl1610_subgroups_dated.log");
  ASSERT_EQ(job.job_log.timeouts.size(), 2u);
  EXPECT_EQ(job.job_log.timeouts[0].rank, 13);
  EXPECT_EQ(job.job_log.timeouts[0].op, "ALLTOALL_BASE");
  EXPECT_EQ(job.job_log.timeouts[0].seq, 216);
  EXPECT_EQ(job.job_log.timeouts[0].loc.line, 1u);
  EXPECT_EQ(job.job_log.timeouts[1].rank, 15);
  EXPECT_EQ(job.job_log.timeouts[1].seq, 57);
  ASSERT_EQ(job.job_log.statuses.size(), 2u);
  EXPECT_EQ(job.job_log.statuses[0].rank, 13);
  EXPECT_EQ(job.job_log.statuses[0].pg, "11");
  EXPECT_EQ(job.job_log.statuses[0].last_enqueued, 220);
  auto fs = FindWatchdogHang(job, {});
  const Finding* t = Find(fs, "hang.watchdog_timeout");
  ASSERT_NE(t, nullptr);
  EXPECT_NE(t->detail.find("2 distinct timed-out collective"), std::string::npos) << t->detail;
}

TEST(JobLog, RankThatNeverEnqueuedIsBehind) {
  FileText f = Data("public/watchdog_llamafactory7396.log");
  // A third rank's status line as PyTorch prints it, stopped two works earlier.
  f.data +=
      "[80750] [rank5]:[E321 02:07:08.465224069 ProcessGroupNCCL.cpp:1664] [PG 1 Rank 5] "
      "Exception (either an error or timeout) detected by watchdog at work: 1578, last "
      "enqueued NCCL work: 1578, last completed NCCL work: 1577.\n";
  Job job;
  ASSERT_TRUE(ingest::ParseJobLog(f, job).has_value());
  auto fs = FindWatchdogHang(job, {});
  const Finding* b = Find(fs, "hang.rank_behind");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->rank, 5);
}

TEST(JobLog, AnotherGroupsStatusIsNotBehind) {
  // Rank 6's status belongs to process group 2, whose sequence numbers are its own: its last
  // enqueued work (12) says nothing about PG 1's #1580.
  FileText f = Data("public/watchdog_llamafactory7396.log");
  f.data +=
      "[80751] [rank6]:[E321 02:07:08.465224069 ProcessGroupNCCL.cpp:1664] [PG 2 Rank 0] "
      "Exception (either an error or timeout) detected by watchdog at work: 12, last "
      "enqueued NCCL work: 12, last completed NCCL work: 11.\n";
  Job job;
  ASSERT_TRUE(ingest::ParseJobLog(f, job).has_value());
  EXPECT_EQ(Find(FindWatchdogHang(job, {}), "hang.rank_behind"), nullptr);
}

TEST(JobLog, CutLinesAreIgnoredNotMisread) {
  FileText f{"t.log",
             "[rank0]:[E1 ProcessGroupNCCL.cpp:1] [Rank 0] Watchdog caught collective "
             "operation timeout: WorkNCCL(SeqNum=8, Op\nlast enqueued\n"};
  Job job;
  ASSERT_TRUE(ingest::ParseJobLog(f, job).has_value());
  EXPECT_TRUE(job.job_log.timeouts.empty());
  EXPECT_TRUE(job.job_log.statuses.empty());
}

// Public threads of a 2026-12-05 sweep (tests/data/hang/README.md): logs that hold the watchdog's
// work status but no "Watchdog caught ... WorkNCCL(...)" line were "nothing found", exit 0.
TEST(JobLog, WorkStatusAloneIsAHangNotAHealthyRun) {
  Job x = Parse("public/watchdog_xvla65_status_only.log");
  EXPECT_TRUE(x.job_log.timeouts.empty());
  ASSERT_EQ(x.job_log.statuses.size(), 1u);
  EXPECT_EQ(x.job_log.statuses[0].failed_seq, 16172);
  EXPECT_FALSE(x.job_log.statuses[0].timed_out);  // "failure detected": error or timeout
  auto fs = FindWatchdogHang(x, {});
  const Finding* t = Find(fs, "hang.watchdog_timeout");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->rank, 2);
  EXPECT_NE(t->title.find("work #16172 of process group 0 failed or timed out"), std::string::npos)
      << t->title;
  EXPECT_NE(t->detail.find("93 more collective(s)"), std::string::npos) << t->detail;
  // The teardown lines make no second timeout finding of their own.
  EXPECT_TRUE(FindWatchdogStall(x, {}).empty());

  // Behind a collector's "[stderr]" tag, wrapped after "last enqueued": "Timeout at NCCL work".
  Job m = Parse("public/watchdog_milabench269_collector_tag.log");
  ASSERT_EQ(m.job_log.statuses.size(), 1u);
  EXPECT_TRUE(m.job_log.statuses[0].timed_out);
  EXPECT_EQ(m.job_log.statuses[0].last_enqueued, 2082);
  EXPECT_EQ(m.job_log.statuses[0].loc.line, 9u);  // not the frames above it
  const std::vector<Finding> mfs = FindWatchdogHang(m, {});
  const Finding* mt = Find(mfs, "hang.watchdog_timeout");
  ASSERT_NE(mt, nullptr);
  EXPECT_EQ(mt->rank, 3);
  EXPECT_NE(mt->title.find("work #2070 of process group 0 timed out"), std::string::npos)
      << mt->title;
}

TEST(JobLog, CutWatchdogLineStillSaysTheJobTimedOut) {
  FileText f{"t.log",
             "[rank1]:[E103 21:39:09.683247674 ProcessGroupNCCL.cpp:2057] [PG ID 0 PG GUID "
             "0(default_pg) Rank 1] Process group watchdog thread terminated with exception: "
             "[Rank 1] Watchdog caught collective operation timeo\n"};
  Job job;
  ASSERT_TRUE(ingest::ParseJobLog(f, job).has_value());
  EXPECT_TRUE(job.job_log.timeouts.empty());
  auto fs = FindWatchdogStall(job, {});
  const Finding* t = Find(fs, "hang.watchdog_timeout");
  ASSERT_NE(t, nullptr);
  EXPECT_FALSE(t->rank.has_value());  // which rank timed out first: unknown
  EXPECT_NE(t->title.find("terminated rank 1"), std::string::npos) << t->title;
  EXPECT_FALSE(job.quality.empty());  // the cut is said
}

TEST(JobLog, DefaultGroupRankBeatsALaunchersLocalRankPrefix) {
  // torchrun --role rank --tee 3 on the second node: "[rank0]:" is the local rank, the default
  // group's "Rank 4" the global one.
  Job job = Parse("public/watchdog_torchtitan810_local_prefix.log");
  ASSERT_FALSE(job.job_log.timeouts.empty());
  EXPECT_EQ(job.job_log.timeouts[0].rank, 4);
  EXPECT_EQ(job.job_log.timeouts[0].seq, 49120);
  // A sub-group's rank still yields to the launcher's global one (NCCL issue 1610).
  Job sub = Parse("public/watchdog_nccl1610_subgroups_dated.log");
  EXPECT_EQ(sub.job_log.timeouts[0].rank, 13);
}

}  // namespace
}  // namespace commdx::analysis
