// Ranks out of step in their watchdog lines (hang_watchdog_skew.cc): the same SeqNum with another
// collective is hang.desync, a lower SeqNum is hang.rank_behind, and the same collective at the
// same SeqNum everywhere (the ordinary hang) is neither. Real logs of public threads
// (tests/data/hang/README.md) and lines written for each rule.
#include <gtest/gtest.h>

#include <optional>
#include <set>

#include "analysis/analysis_input.h"
#include "analysis/hang_analyzers.h"
#include "analysis/hang_flight_util.h"
#include "base/file.h"
#include "diagnose/diagnosis.h"
#include "ingest/job_log/job_log_importer.h"
#include "ingest/load_inputs.h"

namespace commdx::analysis {
namespace {

const std::string kData = std::string(COMMDX_SOURCE_DIR) + "/tests/data/hang/";

Job Text(const std::string& text) {
  Job job;
  EXPECT_TRUE(ingest::ParseJobLog(FileText{"job.log", text}, job).has_value());
  return job;
}

std::optional<Finding> Find(const std::vector<Finding>& fs, std::string_view id) {
  for (const auto& f : fs)
    if (f.id == id) return f;
  return std::nullopt;
}

bool Has(const std::string& s, std::string_view part) { return s.find(part) != std::string::npos; }

Job Load(const std::string& rel) {
  auto job = ingest::LoadInputs({kData + rel}, {});
  EXPECT_TRUE(job.has_value()) << rel;
  return job.has_value() ? *job : Job{};
}

// `commdx diagnose` on one file: its root cause must be `id`, the watchdog timeout's fix must
// name it; returns the root's finding.
Finding RootOf(const std::string& rel, std::string_view id) {
  Job job = Load(rel);
  AnalysisInput input(job);
  auto diag = diagnose::Diagnose(input, {});
  EXPECT_TRUE(diag.root_cause.has_value() && diag.root_cause->id == id) << rel;
  auto w = Find(diag.findings, "hang.watchdog_timeout");
  EXPECT_TRUE(w.has_value()) << rel;
  if (w) {
    EXPECT_TRUE(Has(w->fix, std::string(id) + " in this report says why")) << w->fix;
  }
  auto root = Find(diag.findings, id);
  return root.value_or(Finding{});
}

// "[rankR]:[E...] [Rank R] Watchdog caught ... WorkNCCL(SeqNum=S, OpType=OP, NumelIn=N, ...)",
// with "[PG ID .. PG GUID ..]" in front of "[Rank R]" when `pg` is given.
std::string Caught(int rank, int seq, const std::string& op, int numel, const std::string& pg = "") {
  return "[rank" + std::to_string(rank) + "]:[E816 01:45:40.1 ProcessGroupNCCL.cpp:607] " + pg +
         "[Rank " + std::to_string(rank) +
         "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=" + std::to_string(seq) +
         ", OpType=" + op + ", NumelIn=" + std::to_string(numel) +
         ", NumelOut=" + std::to_string(numel) +
         ", Timeout(ms)=600000) ran for 600026 milliseconds before timing out.\n";
}

std::string Status(int rank, const std::string& pg, int at, int enqueued) {
  return "[rank" + std::to_string(rank) + "]:[E816 01:45:40.2 ProcessGroupNCCL.cpp:1664] [" + pg +
         " Rank " + std::to_string(rank) +
         "] Exception (either an error or timeout) detected by watchdog at work: " +
         std::to_string(at) + ", last enqueued NCCL work: " + std::to_string(enqueued) +
         ", last completed NCCL work: " + std::to_string(at - 1) + ".\n";
}

TEST(WatchdogSkew, Nccl1409BroadcastAgainstAllreduceIsTheRoot) {
  auto d = RootOf("public/watchdog_nccl1409_bcast_vs_allreduce.log", "hang.desync");
  EXPECT_TRUE(Has(d.title, "#80078 of process group 0")) << d.title;
  EXPECT_TRUE(Has(d.title, "rank 7: BROADCAST of 5056 elements")) << d.title;
  EXPECT_TRUE(Has(d.title, "rank 3: ALLREDUCE of 2106881 elements")) << d.title;
  // Rank 3's line names no group: matched by the number alone.
  EXPECT_DOUBLE_EQ(d.confidence, 0.6);
  EXPECT_TRUE(Has(d.detail, "do not name their process group")) << d.detail;
  std::set<uint32_t> lines;
  for (const auto& r : d.refs) lines.insert(r.where.line);
  EXPECT_EQ(lines, (std::set<uint32_t>{1, 2, 3}));
}

TEST(WatchdogSkew, LlamaFactory2902RankAtTheLowerSeqNumIsBehind) {
  auto b = RootOf("public/watchdog_llamafactory2902_seq_skew.log", "hang.rank_behind");
  EXPECT_EQ(b.rank, 0);
  EXPECT_TRUE(Has(b.title, "Rank 0 of process group 1 is behind")) << b.title;
  EXPECT_TRUE(Has(b.title, "#1516 (ALLREDUCE of 25427968 elements)")) << b.title;
  EXPECT_TRUE(Has(b.title, "rank 1 had finished it and waited in #1517 (ALLREDUCE of 1 element)"))
      << b.title;
  EXPECT_TRUE(Has(b.title, "which rank 0 never issued")) << b.title;
  EXPECT_TRUE(Has(b.detail, "reduces one element")) << b.detail;
  EXPECT_FALSE(Find(FindWatchdogHang(Load("public/watchdog_llamafactory2902_seq_skew.log"), {}),
                    "hang.desync")
                   .has_value());
}

TEST(WatchdogSkew, SameSeqNumAnotherOpInOneGroupIsDesync) {
  Job job = Text(Caught(0, 12, "ALLREDUCE", 1024, "[PG ID 0 PG GUID 0(default_pg) Rank 0] ") +
                 Caught(1, 12, "BROADCAST", 1024, "[PG ID 0 PG GUID 0(default_pg) Rank 1] ") +
                 Caught(2, 12, "ALLREDUCE", 1024, "[PG ID 0 PG GUID 0(default_pg) Rank 2] "));
  auto fs = FindWatchdogHang(job, {});
  auto d = Find(fs, "hang.desync");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->rank, 1);  // the odd one out
  EXPECT_DOUBLE_EQ(d->confidence, 0.9);
  EXPECT_EQ(Find(fs, "hang.rank_behind"), std::nullopt);
  // A different size at the same number is a desync too; a different all-to-all split is not.
  EXPECT_TRUE(Find(FindWatchdogHang(Text(Caught(0, 5, "ALLREDUCE", 8) + Caught(1, 5, "ALLREDUCE", 9)),
                                    {}),
                   "hang.desync")
                  .has_value());
  EXPECT_FALSE(Find(FindWatchdogHang(Text(Caught(0, 5, "ALLTOALL_BASE", 8) +
                                          Caught(1, 5, "ALLTOALL_BASE", 9)),
                                     {}),
                    "hang.desync")
                   .has_value());
}

TEST(WatchdogSkew, SameCollectiveEverywhereIsTheOrdinaryHang) {
  Job job = Text(Caught(0, 808, "ALLREDUCE", 9801523) + Status(0, "PG 0", 808, 811) +
                 Caught(1, 808, "ALLREDUCE", 9801523) + Status(1, "PG 0", 808, 811));
  auto fs = FindWatchdogHang(job, {});
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].id, "hang.watchdog_timeout");
  // No cause found, no other input read: the fix points to no finding.
  EXPECT_FALSE(Has(fs[0].fix, "hang.")) << fs[0].fix;
  EXPECT_TRUE(Has(fs[0].fix, "Compare every rank's log")) << fs[0].fix;
}

TEST(WatchdogSkew, LowerSeqNumIsBehind) {
  Job job = Text(Caught(0, 40, "ALLREDUCE", 4096) + Status(0, "PG 3", 40, 41) +
                 Caught(1, 41, "ALLGATHER", 64) + Status(1, "PG 3", 41, 41));
  auto fs = FindWatchdogHang(job, {});
  auto b = Find(fs, "hang.rank_behind");
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->rank, 0);
  // Its status says it enqueued #41: stuck, not "never issued".
  EXPECT_FALSE(Has(b->title, "never issued")) << b->title;
  EXPECT_DOUBLE_EQ(b->confidence, 0.7);
  EXPECT_EQ(Find(fs, "hang.desync"), std::nullopt);
}

TEST(WatchdogSkew, OtherGroupsAreNotCompared) {
  // NVIDIA/nccl#1610: two sub-groups that share a PG ID (11) but not a PG GUID (119, 112).
  auto sub = FindWatchdogHang(Load("public/watchdog_nccl1610_subgroups_dated.log"), {});
  EXPECT_EQ(Find(sub, "hang.rank_behind"), std::nullopt);
  EXPECT_EQ(Find(sub, "hang.desync"), std::nullopt);
  // pytorch/pytorch#118369: no group anywhere, and 32,000 collectives apart.
  auto old = FindWatchdogHang(Load("public/watchdog_pytorch118369_old.log"), {});
  EXPECT_EQ(Find(old, "hang.rank_behind"), std::nullopt);
  // Lines without a group next to lines of two named groups cannot be placed.
  Job two = Text(Caught(0, 7, "ALLREDUCE", 8, "[PG ID 1 PG GUID 5 Rank 0] ") +
                 Caught(1, 9, "ALLREDUCE", 8, "[PG ID 2 PG GUID 6 Rank 0] ") +
                 Caught(2, 7, "BROADCAST", 8));
  auto twofs = FindWatchdogHang(two, {});
  EXPECT_EQ(Find(twofs, "hang.rank_behind"), std::nullopt);
  EXPECT_EQ(Find(twofs, "hang.desync"), std::nullopt);
}

TEST(WatchdogWording, NoPlaceholders) {
  // WongKinYiu/yolov9#539: PyTorch before SeqNum was printed.
  Job job = Text(
      "  what():  [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(OpType="
      "ALLREDUCE, Timeout(ms)=1800000) ran for 1800909 milliseconds before timing out.\n");
  auto fs = FindWatchdogHang(job, {});
  ASSERT_FALSE(fs.empty());
  EXPECT_EQ(fs[0].title, "Watchdog timeout on rank 2: ALLREDUCE did not finish within 1800000 ms");
  EXPECT_EQ(RanksPhrase({-1}), "a rank");
  EXPECT_EQ(RanksPhrase({-1, 3}), "rank 3 and a rank the log does not name");
  EXPECT_EQ(RanksPhrase({0, 2}), "ranks 0,2");
}

}  // namespace
}  // namespace commdx::analysis
