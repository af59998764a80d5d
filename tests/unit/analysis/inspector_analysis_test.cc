// Inspector records matched across ranks: who is late, who is not named, and what the summary
// says, on records made by hand (the real captures: tests/golden/inspector_captures_test.cc).
#include <gtest/gtest.h>

#include "analysis/inspector_analyzers.h"
#include "analysis/inspector_match.h"

namespace commdx::analysis {
namespace {

InspectorRecord Rec(int rank, uint64_t sn, double exec_ms, int n_ranks = 3,
                    const char* host = "node0") {
  InspectorRecord r;
  r.comm_id = "0xabc";
  r.rank = rank;
  r.n_ranks = n_ranks;
  r.nnodes = 1;
  r.hostname = host;
  r.pid = 100 + rank;
  r.coll = "AllReduce";
  r.coll_sn = sn;
  r.msg_bytes = 64 << 20;
  r.exec_ns = static_cast<int64_t>(exec_ms * 1e6);
  r.busbw_gbps = 100;
  r.dump_ns = static_cast<int64_t>(sn) * 100'000'000 + r.exec_ns;
  return r;
}

// `late` arrives `late_ms` after the others in collectives whose sn % 5 == 0; the rest even.
Job Straggling(int late, double late_ms, uint64_t n = 30) {
  Job job;
  for (uint64_t sn = 0; sn < n; ++sn)
    for (int rank = 0; rank < 3; ++rank) {
      double ms = 10 + 0.1 * rank;  // noise: rank 0 a little shorter everywhere
      if (sn % 5 == 0 && rank != late) ms += late_ms;
      job.inspector.push_back(Rec(rank, sn, ms));
    }
  return job;
}

TEST(InspectorLateRank, NamesTheRankOthersWaitFor) {
  auto out = FindInspectorLateRank(Straggling(2, 40), {});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].id, "inspector.late_rank");
  EXPECT_EQ(out[0].rank, 2);
  EXPECT_NE(out[0].title.find("rank 2 (pid 102 on node0)"), std::string::npos) << out[0].title;
  EXPECT_NE(out[0].title.find("6 of 30"), std::string::npos) << out[0].title;
  EXPECT_FALSE(out[0].saving_ns_per_step.has_value());
}

TEST(InspectorLateRank, NoiseAndSmallWaitsNameNobody) {
  // 0.5 ms late: under the 1 ms floor.
  EXPECT_TRUE(FindInspectorLateRank(Straggling(2, 0.5), {}).empty());
  // Late rank changes every time: no rank has 75% of the waits.
  Job job;
  for (uint64_t sn = 0; sn < 30; ++sn)
    for (int rank = 0; rank < 3; ++rank)
      job.inspector.push_back(Rec(rank, sn, rank == static_cast<int>(sn % 3) ? 10 : 30));
  EXPECT_TRUE(FindInspectorLateRank(job, {}).empty());
}

TEST(InspectorLateRank, OnlyCollectivesOfEveryRankAreMatched) {
  Job job = Straggling(2, 40);
  // Rank 2's file is missing: the others' long kernels could be waiting for anyone.
  std::erase_if(job.inspector, [](const InspectorRecord& r) { return r.rank == 2; });
  EXPECT_TRUE(FindInspectorLateRank(job, {}).empty());
  auto comms = MatchInspector(job.inspector);
  ASSERT_EQ(comms.size(), 1u);
  EXPECT_EQ(comms[0].ranks_seen, 2);
  EXPECT_FALSE(comms[0].colls[0].complete);
}

TEST(InspectorLateRank, KernelStartSkewOnlyOnOneHost) {
  Job job = Straggling(2, 40);
  for (InspectorRecord& r : job.inspector) {
    r.verbose = true;
    r.channels = 2;
    bool late = r.coll_sn % 5 == 0 && r.rank == 2;
    r.kernel_start_ns = static_cast<int64_t>(r.coll_sn) * 100'000'000 + (late ? 40'000'000 : 0);
  }
  auto out = FindInspectorLateRank(job, {});
  ASSERT_EQ(out.size(), 1u);
  bool has_skew = false;
  for (const auto& m : out[0].metrics) {
    if (m.name != "median_kernel_start_skew") continue;
    has_skew = true;
    EXPECT_EQ(m.value, 40e6);
  }
  EXPECT_TRUE(has_skew);
  for (InspectorRecord& r : job.inspector)
    if (r.rank == 1) r.hostname = "node1";
  out = FindInspectorLateRank(job, {});
  ASSERT_EQ(out.size(), 1u);
  for (const auto& m : out[0].metrics) EXPECT_NE(m.name, "median_kernel_start_skew");
  EXPECT_NE(out[0].detail.find("different hosts"), std::string::npos);
}

TEST(InspectorSummary, KindAndBandwidthPerSize) {
  Job job = Straggling(2, 40);
  auto out = FindInspectorBandwidth(job, {});
  ASSERT_EQ(out.size(), 1u);  // no topology: no expectation, no slow finding
  EXPECT_EQ(out[0].id, "inspector.comm_summary");
  EXPECT_NE(out[0].title.find("3 ranks on 1 node(s), nvlink-only; 30 AllReduce"), std::string::npos)
      << out[0].title;
  EXPECT_NE(out[0].detail.find("AllReduce 64.00 MiB x30: 100.00 GB/s"), std::string::npos)
      << out[0].detail;
}

TEST(InspectorSummary, NamesTheCommunicatorWhereNccl230Did) {
  // NCCL 2.30's records carry "comm_name" ("unknown" for an unnamed communicator); older ones
  // none: the id alone then.
  Job job = Straggling(2, 40);
  for (InspectorRecord& r : job.inspector) r.comm_name = "DP Group 0";
  auto summary = FindInspectorBandwidth(job, {});
  ASSERT_EQ(summary.size(), 1u);
  EXPECT_NE(summary[0].title.find("Communicator 0xabc (\"DP Group 0\"): 3 ranks"),
            std::string::npos)
      << summary[0].title;
  auto late = FindInspectorLateRank(job, {});
  ASSERT_EQ(late.size(), 1u);
  EXPECT_NE(late[0].title.find("communicator 0xabc (\"DP Group 0\") wait"), std::string::npos)
      << late[0].title;
  for (InspectorRecord& r : job.inspector) r.comm_name = "unknown";
  auto comms = MatchInspector(job.inspector);
  ASSERT_EQ(comms.size(), 1u);
  EXPECT_EQ(InspectorCommLabel(comms[0]), "0xabc");
}

}  // namespace
}  // namespace commdx::analysis
