// bench replay's runner and verdict on the fake backend (a link of set bus bandwidth and
// latency): which groups are replayed, what is left out, the sequence of one step, and the
// verdict the analysis draws from the job's times against the replay's.
#include "bench/replay_runner.h"

#include <gtest/gtest.h>

#include "analysis/bench_analyzers.h"
#include "analysis/replay_verdict.h"
#include "bench/fake_backend.h"

namespace commdx::bench {
namespace {

constexpr int kFloat = 7;

ReplayCall AllReduce(uint64_t count, int step, int64_t in_job_ns, int64_t wait_ns = -1) {
  ReplayCall c;
  c.type = CollectiveType::kAllReduce;
  c.dtype = kFloat;
  c.red_op = 0;
  c.count = count;
  c.bytes = count * 4;
  c.in_job_ns = in_job_ns;
  c.wait_ns = wait_ns;
  c.step = step;
  return c;
}

// A DDP-like group over `ranks`: per step two 8 MiB buckets and one 1 KiB all-reduce, steps
// 0..2, every call taking `job_ns` in the job of which `wait_ns` waiting.
ReplayPlan DdpPlan(int ranks, int64_t job_ns, int64_t wait_ns) {
  ReplayPlan p;
  p.source = "trace";
  p.world_size = ranks;
  ReplayGroup g;
  g.name = "0";
  g.desc = "default_pg";
  g.size = ranks;
  g.steps = 3;
  for (int s = 0; s < 3; ++s) {
    g.calls.push_back(AllReduce(2u << 20, s, job_ns, wait_ns));
    g.calls.push_back(AllReduce(2u << 20, s, job_ns, wait_ns));
    g.calls.push_back(AllReduce(256, s, 20000, 0));
  }
  p.groups.push_back(g);
  return p;
}

ReplayOptions Quick() {
  ReplayOptions o;
  o.run.iters = 20;
  o.run.check = false;
  return o;
}

// The fake link: 10 us latency, 100 GB/s bus bandwidth, no jitter.
FakeOptions Link(int ranks) {
  FakeOptions f;
  f.ranks = ranks;
  f.latency_us = 10;
  f.busbw_gbps = 100;
  f.jitter = 0;
  f.topology.gpu_name = "NVIDIA H100 80GB HBM3";
  f.topology.link = BenchLink::kNvLink;
  f.topology.nvlink_version = 4;
  f.topology.nvlinks_per_gpu = 18;
  return f;
}

TEST(BenchReplay, ShapesAloneAndTheSequenceOfOneStep) {
  FakeBackend b(Link(2));
  ASSERT_TRUE(b.Connect());
  auto r = RunReplay(b, nullptr, DdpPlan(2, 400000, 0), Quick());
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->groups.size(), 1u);
  const ReplayGroupResult& g = r->groups[0];
  ASSERT_EQ(g.shapes.size(), 2u);  // the 8 MiB bucket and the 1 KiB call
  EXPECT_EQ(g.shapes[0].job_calls, 6);
  EXPECT_EQ(g.shapes[0].bytes, 8u << 20);
  EXPECT_EQ(g.shapes[0].dtype, "float");
  EXPECT_EQ(g.shapes[0].redop, "sum");
  EXPECT_DOUBLE_EQ(g.shapes[0].job_us, 400);
  // 8 MiB all_reduce on 2 ranks: 10 us + 8 MiB x 1 (bus factor) / 100 GB/s = 93.9 us.
  const double bucket_us = 10 + (8u << 20) / 100e3;
  EXPECT_NEAR(g.shapes[0].alone.time_us, bucket_us, 0.01);
  EXPECT_NEAR(g.shapes[0].sequence_us, bucket_us, 0.01);
  EXPECT_NEAR(g.shapes[0].alone.busbw_gbps, (8u << 20) / (bucket_us * 1e3), 0.01);
  // One step: two buckets and the small call, in the job and replayed.
  EXPECT_EQ(g.sequence_calls, 3);
  EXPECT_DOUBLE_EQ(g.job_sequence_us, 400 + 400 + 20);
  EXPECT_NEAR(g.replay_sequence_us, 2 * bucket_us + 10 + 1024 / 100e3, 0.01);
  EXPECT_TRUE(r->left_out.empty());
}

TEST(BenchReplay, VerdictTellsTheLoopFromTheFabric) {
  // Fast alone, the job's calls 4x slower, mostly waiting: the training loop.
  {
    FakeBackend b(Link(2));
    ASSERT_TRUE(b.Connect());
    Job job;
    auto r = RunReplay(b, nullptr, DdpPlan(2, 400000, 300000), Quick());
    ASSERT_TRUE(r);
    job.replay.push_back(*r);
    auto v = analysis::JudgeReplays(job);
    ASSERT_EQ(v.size(), 1u);
    EXPECT_EQ(v[0].kind, analysis::ReplayVerdictKind::kSlowInJob);
    EXPECT_GT(v[0].ratio, analysis::kSlowInJobRatio);
    EXPECT_NEAR(
        v[0].saving_us,
        job.replay[0].groups[0].job_sequence_us - job.replay[0].groups[0].replay_sequence_us, 1e-6);
    EXPECT_TRUE(v[0].per_step);
  }
  // The same times in the job as alone, on a link far below an H100's NVLink: the fabric.
  {
    FakeOptions slow = Link(2);
    slow.busbw_gbps = 20;
    FakeBackend b(slow);
    ASSERT_TRUE(b.Connect());
    const int64_t alone_ns = static_cast<int64_t>((10 + (8u << 20) / 20e3) * 1e3);
    Job job;
    auto r = RunReplay(b, nullptr, DdpPlan(2, alone_ns, 0), Quick());
    ASSERT_TRUE(r);
    job.replay.push_back(*r);
    auto v = analysis::JudgeReplays(job);
    ASSERT_EQ(v.size(), 1u);
    EXPECT_EQ(v[0].kind, analysis::ReplayVerdictKind::kSlowAlone);
    EXPECT_LT(v[0].alone_efficiency, analysis::kSlowAloneEfficiency);
    EXPECT_GT(v[0].saving_us, 0);
    EXPECT_LE(v[0].saving_us, job.replay[0].groups[0].job_sequence_us);
    EXPECT_FALSE(v[0].also_slow_alone);
  }
  // Slow alone and, on top, 3x slower in the job (a straggler on a slow link): both verdicts.
  {
    FakeOptions slow = Link(2);
    slow.busbw_gbps = 20;
    FakeBackend b(slow);
    ASSERT_TRUE(b.Connect());
    const int64_t job_ns = static_cast<int64_t>(3 * (10 + (8u << 20) / 20e3) * 1e3);
    Job job;
    auto r = RunReplay(b, nullptr, DdpPlan(2, job_ns, job_ns / 2), Quick());
    ASSERT_TRUE(r);
    job.replay.push_back(*r);
    auto v = analysis::JudgeReplays(job);
    ASSERT_EQ(v.size(), 1u);
    EXPECT_EQ(v[0].kind, analysis::ReplayVerdictKind::kSlowInJob);
    EXPECT_TRUE(v[0].also_slow_alone);
    EXPECT_GT(v[0].slow_alone_saving_us, 0);
  }
}

// Two replays of one job: with its NCCL settings (a link 50x slower, as NCCL_MAX_NCHANNELS=1
// NCCL_BUFFSIZE=65536 made sockets on the H200) and without them. The job ran as slow as the
// replay with them: the settings are the cause, measured, and the replay without them (where
// the job looks 50x slower than alone) raises nothing of its own.
TEST(BenchReplay, SettingsPairMeasuresWhatTheSettingsCost) {
  FakeOptions with = Link(2);
  with.busbw_gbps = 2;
  FakeBackend slow(with);
  ASSERT_TRUE(slow.Connect());
  const int64_t job_ns = static_cast<int64_t>((10 + (8u << 20) / 2e3) * 1e3);
  auto a = RunReplay(slow, nullptr, DdpPlan(2, job_ns, 0), Quick());
  ASSERT_TRUE(a);
  FakeBackend fast(Link(2));
  ASSERT_TRUE(fast.Connect());
  auto b = RunReplay(fast, nullptr, DdpPlan(2, job_ns, 0), Quick());
  ASSERT_TRUE(b);
  Job job;
  job.replay = {*a, *b};
  for (ReplayResult& r : job.replay) r.files = {"job/trace_rank0.json"};
  job.replay[0].settings_applied = {"NCCL_MAX_NCHANNELS=1", "NCCL_BUFFSIZE=65536"};
  job.replay[1].settings_left_out = {"NCCL_MAX_NCHANNELS=1", "NCCL_BUFFSIZE=65536"};
  auto v = analysis::JudgeReplays(job);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].kind, analysis::ReplayVerdictKind::kSlowAlone);
  EXPECT_TRUE(v[0].by_settings);
  EXPECT_EQ(v[0].settings_sibling, 1);
  const double with_us = job.replay[0].groups[0].replay_sequence_us;
  const double without_us = job.replay[1].groups[0].replay_sequence_us;
  EXPECT_DOUBLE_EQ(v[0].settings_baseline_us, without_us);
  EXPECT_NEAR(v[0].saving_us, with_us - without_us, 1e-6);
  EXPECT_TRUE(v[1].baseline_only);
  EXPECT_EQ(v[1].kind, analysis::ReplayVerdictKind::kSlowInJob);  // alone, it would say so
  analysis::AnalysisInput input(job);
  auto fs = analysis::FindReplayVerdicts(input, {});
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].id, "replay.slow_alone");
  EXPECT_NE(fs[0].title.find("NCCL_MAX_NCHANNELS=1, NCCL_BUFFSIZE=65536 make its collectives"),
            std::string::npos)
      << fs[0].title;
  ASSERT_TRUE(fs[0].saving_ns_per_step.has_value());
  EXPECT_NEAR(*fs[0].saving_ns_per_step, (with_us - without_us) * 1e3, 1);

  // The replay without the settings, alone: slow in the job, but it says the settings may be
  // the difference.
  Job only;
  only.replay = {job.replay[1]};
  analysis::AnalysisInput one(only);
  auto lone = analysis::FindReplayVerdicts(one, {});
  ASSERT_FALSE(lone.empty());
  EXPECT_EQ(lone[0].id, "replay.slow_in_job");
  EXPECT_NE(lone[0].detail.find("settings this replay left out (NCCL_MAX_NCHANNELS=1"),
            std::string::npos)
      << lone[0].detail;
  EXPECT_LT(lone[0].confidence, 0.6);
}

// Ranks that reported one GPU took turns on it: the link is not judged.
TEST(BenchReplay, SharedGpuIsNotJudgedAgainstTheLink) {
  FakeOptions slow = Link(2);
  slow.busbw_gbps = 2;
  FakeBackend b(slow);
  ASSERT_TRUE(b.Connect());
  const int64_t alone_ns = static_cast<int64_t>((10 + (8u << 20) / 2e3) * 1e3);
  auto r = RunReplay(b, nullptr, DdpPlan(2, alone_ns, 0), Quick());
  ASSERT_TRUE(r);
  Job job;
  job.replay.push_back(*r);
  job.replay[0].rank_gpus = {{0, "GPU-1", "0000:00:06.0", "h"}, {1, "GPU-1", "0000:00:06.0", "h"}};
  auto v = analysis::JudgeReplays(job);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_TRUE(v[0].shared_gpu);
  EXPECT_EQ(v[0].kind, analysis::ReplayVerdictKind::kAsAlone);
  job.replay[0].rank_gpus[1].uuid = "GPU-2";
  EXPECT_EQ(analysis::JudgeReplays(job)[0].kind, analysis::ReplayVerdictKind::kSlowAlone);
}

TEST(BenchReplay, GroupsThatCannotBeFormedAreNamed) {
  // A job of 8 ranks: the world group is replayed on this run's 2 ranks (said in notes), a
  // group of 4 cannot be formed, and a barrier and a send to no known peer have no replay.
  ReplayPlan p = DdpPlan(8, 400000, 0);
  p.groups[0].size = 8;
  ReplayGroup tp = p.groups[0];
  tp.name = "1";
  tp.desc = "";
  tp.size = 4;
  p.groups.push_back(tp);
  ReplayCall barrier;
  barrier.type = CollectiveType::kBarrier;
  p.groups[0].calls.push_back(barrier);
  ReplayCall send = AllReduce(16, 0, 1000);
  send.type = CollectiveType::kSend;
  p.groups[0].calls.push_back(send);
  FakeBackend b(Link(2));
  ASSERT_TRUE(b.Connect());
  auto r = RunReplay(b, nullptr, p, Quick());
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->groups.size(), 1u);
  EXPECT_EQ(r->groups[0].job_ranks, 8);
  EXPECT_EQ(r->groups[0].replay_ranks, 2);
  ASSERT_EQ(r->left_out.size(), 3u);
  std::string all = r->left_out[0] + "|" + r->left_out[1] + "|" + r->left_out[2];
  EXPECT_NE(all.find("group 1 (4 of the job's 8 ranks)"), std::string::npos) << all;
  EXPECT_NE(all.find("1 call of group 0 (default_pg): barrier has no NCCL call"), std::string::npos)
      << all;
  EXPECT_NE(all.find("1 call of group 0 (default_pg): its peer is not known"), std::string::npos)
      << all;
  ASSERT_EQ(r->notes.size(), 1u);
  EXPECT_NE(r->notes[0].find("has 8 ranks in the job and was replayed on 2"), std::string::npos);
  // Only the group of 4: nothing can be replayed here, and the error says why.
  p.groups.erase(p.groups.begin());
  auto none = RunReplay(b, nullptr, p, Quick());
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("run the replay with 4 processes"), std::string::npos)
      << none.error().message;
}

ReplayCall PointToPoint(CollectiveType type, int peer, uint64_t count) {
  ReplayCall c = AllReduce(count, 0, 50000);
  c.type = type;
  c.red_op = -1;
  c.root = peer;
  return c;
}

TEST(BenchReplay, SendsAndReceivesAreReplayedAsAShiftedExchange) {
  // Rank 1's view of a 4-rank pipeline group: it receives from rank 0 and sends to rank 2 (one
  // rank on: data flows i -> i + 1), and once sends to rank 3 (two on). The peers are global
  // ranks, the group's ranks listed.
  ReplayPlan p;
  p.source = "trace";
  p.world_size = 4;
  ReplayGroup g;
  g.name = "0";
  g.size = 4;
  g.ranks = {0, 1, 2, 3};
  g.source_rank = 1;
  g.calls = {PointToPoint(CollectiveType::kRecv, 0, 1 << 20),
             PointToPoint(CollectiveType::kSend, 2, 1 << 20),
             PointToPoint(CollectiveType::kSend, 3, 1 << 20),
             PointToPoint(CollectiveType::kSend, 1, 1 << 20)};  // to itself: no peer
  p.groups.push_back(g);
  FakeBackend b(Link(4));
  ASSERT_TRUE(b.Connect());
  auto r = RunReplay(b, nullptr, p, Quick());
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->groups.size(), 1u);
  const auto& shapes = r->groups[0].shapes;
  ASSERT_EQ(shapes.size(), 2u);
  EXPECT_EQ(shapes[0].type, CollectiveType::kSendRecv);
  EXPECT_EQ(shapes[0].root, 1);
  EXPECT_EQ(shapes[0].job_calls, 2);  // the receive and the send one rank on
  EXPECT_EQ(shapes[1].root, 2);
  EXPECT_EQ(shapes[1].job_calls, 1);
  EXPECT_GT(shapes[0].alone.time_us, 0);
  EXPECT_EQ(r->groups[0].sequence_calls, 3);
  // A send to rank 1 from rank 1 is nothing NCCL replays: the group reading (rank 1 of the
  // group) is rank 1 too.
  ASSERT_EQ(r->left_out.size(), 1u);
  EXPECT_NE(r->left_out[0].find("1 call of group 0: its peer is not known"), std::string::npos)
      << r->left_out[0];

  // The same group as ranks 4-7 of an 8-rank job, seen from global rank 5, the peers given as
  // ranks in the group: receive from group rank 0, send to group rank 2.
  g.ranks = {4, 5, 6, 7};
  g.source_rank = 5;
  g.calls = {PointToPoint(CollectiveType::kRecv, 0, 1 << 20),
             PointToPoint(CollectiveType::kSend, 2, 1 << 20)};
  p.groups = {g};
  auto sub = RunReplay(b, nullptr, p, Quick());
  ASSERT_TRUE(sub) << sub.error().message;
  ASSERT_EQ(sub->groups[0].shapes.size(), 1u);
  EXPECT_EQ(sub->groups[0].shapes[0].root, 1);
  EXPECT_EQ(sub->groups[0].shapes[0].job_calls, 2);
}

TEST(BenchReplay, GroupsSmallerThanTheRunAreSubCommunicatorsSideBySide) {
  // An 8-rank job replayed on 4 ranks: a tensor-parallel pair (ranks 0-1), a data-parallel
  // pair (ranks 0 and 2, two apart) and a group of 3, which 4 ranks cannot hold side by side.
  ReplayPlan p = DdpPlan(2, 400000, 0);
  p.world_size = 8;
  p.groups[0].name = "tp";
  p.groups[0].desc = "";
  p.groups[0].ranks = {0, 1};
  ReplayGroup dp = p.groups[0];
  dp.name = "dp";
  dp.ranks = {0, 2};
  ReplayGroup odd = p.groups[0];
  odd.name = "three";
  odd.size = 3;
  odd.ranks = {0, 1, 2};
  p.groups.push_back(dp);
  p.groups.push_back(odd);
  FakeBackend b(Link(4));
  ASSERT_TRUE(b.Connect());
  auto r = RunReplay(b, nullptr, p, Quick());
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->groups.size(), 2u);
  for (const ReplayGroupResult& g : r->groups) {
    EXPECT_EQ(g.job_ranks, 2);
    EXPECT_EQ(g.replay_ranks, 2);
    EXPECT_EQ(g.side_by_side, 2);
    ASSERT_EQ(g.shapes.size(), 2u);
    EXPECT_GT(g.shapes[0].alone.busbw_gbps, 0);
  }
  EXPECT_EQ(b.group_size(), 0);  // back on every rank once the groups are done
  ASSERT_EQ(r->notes.size(), 2u);
  EXPECT_NE(r->notes[0].find("group tp (2 of the job's 8 ranks) was replayed on 2 "
                             "sub-communicators of 2 consecutive ranks, side by side"),
            std::string::npos)
      << r->notes[0];
  EXPECT_NE(r->notes[1].find("of 2 ranks 2 apart, as in the job"), std::string::npos)
      << r->notes[1];
  ASSERT_EQ(r->left_out.size(), 1u);
  EXPECT_NE(r->left_out[0].find("group three (3 of the job's 8 ranks): this run has 4 ranks"),
            std::string::npos)
      << r->left_out[0];
}

TEST(BenchReplay, ScaleShrinksEveryCallAndIsSaid) {
  FakeBackend b(Link(2));
  ASSERT_TRUE(b.Connect());
  ReplayOptions o = Quick();
  o.scale = 0.25;
  auto r = RunReplay(b, nullptr, DdpPlan(2, 400000, 0), o);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->groups[0].shapes[0].bytes, 2u << 20);
  ASSERT_FALSE(r->notes.empty());
  EXPECT_NE(r->notes.back().find("scaled by 0.25"), std::string::npos) << r->notes.back();
  o.scale = 0;
  EXPECT_FALSE(RunReplay(b, nullptr, DdpPlan(2, 400000, 0), o));
}

}  // namespace
}  // namespace commdx::bench
