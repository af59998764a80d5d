// The real backend on real GPUs: every collective, dtype and reduction checked correct, CUDA
// graphs, P2P copies, and the watchdog aborting a collective one rank never joins. Skips when
// this machine has no GPU, driver or NCCL.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "bench/cases.h"
#include "bench/coll_runner.h"
#include "bench/create_backend.h"
#include "bench/launch.h"
#include "bench/p2p_runner.h"
#include "bench/replay_runner.h"
#include "bench/watchdog.h"

namespace commdx::bench {
namespace {

// Under a launcher (torchrun, mpirun, srun) each process is one rank of the launched job, as
// `commdx bench` would be; alone, one process drives every visible GPU.
BackendOptions Launched(BackendOptions o) {
  if (auto launch = DetectLaunch([](const char* n) { return std::getenv(n); })) {
    o.launch = *launch;
  }
  return o;
}

// No GPU, driver or NCCL: the test is skipped. A GPU whose communicators fail: the test fails.
#define BACKEND_OR_SKIP(var, ...)                                         \
  auto var##_made = CreateBackend(Launched(BackendOptions{__VA_ARGS__})); \
  if (!var##_made) {                                                      \
    GTEST_SKIP() << var##_made.error().message;                           \
  }                                                                       \
  std::unique_ptr<Backend> var = std::move(var##_made).value();           \
  if (Status c_ = var->Connect(); !c_) {                                  \
    FAIL() << c_.error().ToString();                                      \
  }                                                                       \
  static_assert(true)

RunOptions Quick(uint64_t max_bytes) {
  RunOptions o;
  o.min_bytes = 8;
  o.max_bytes = max_bytes;
  o.factor = 16;
  o.iters = 3;
  return o;
}

TEST(BenchGpu, EveryCollectiveIsCorrectBothPlacements) {
  BACKEND_OR_SKIP(b);
  for (const char* key : {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce",
                          "alltoall", "sendrecv"}) {
    auto r = FindCase(key)->run(*b, nullptr, Quick(4 << 20));
    ASSERT_TRUE(r) << key << ": " << r.error().ToString();
    for (const auto& row : r->rows) {
      EXPECT_EQ(row.out_of_place.wrong, 0) << key << " " << row.bytes;
      if (std::string(key) != "alltoall" && std::string(key) != "sendrecv") {
        EXPECT_EQ(row.in_place.wrong, 0) << key << " in-place " << row.bytes;
      }
      EXPECT_GT(row.out_of_place.time_us, 0);
    }
  }
}

TEST(BenchGpu, EveryDtypeAndReductionIsCorrect) {
  BACKEND_OR_SKIP(b);
  for (DataType t : AllDataTypes()) {
    if ((t == DataType::kFp8E4M3 || t == DataType::kFp8E5M2) && b->Info().nccl_version_code < 22400)
      continue;
    for (RedOp op : {RedOp::kSum, RedOp::kProd, RedOp::kMax, RedOp::kMin, RedOp::kAvg}) {
      RunOptions o = Quick(1 << 20);
      o.dtype = t;
      o.op = op;
      auto r = RunCollective(*b, nullptr, CollectiveType::kAllReduce, o);
      bool fp8 = t == DataType::kFp8E4M3 || t == DataType::kFp8E5M2;
      if (!r && fp8 && r.error().message.find("invalid argument") != std::string::npos) {
        // NCCL 2.28.9 on H200 rejected f8e4m3 avg as an invalid argument (1-GPU machine,
        // 2026-12-01): NCCL does not offer every reduction on fp8. Waived, and said so.
        std::printf("waived: %s %s rejected by NCCL: %s\n", DataTypeName(t), RedOpName(op),
                    r.error().message.c_str());
        continue;
      }
      ASSERT_TRUE(r) << DataTypeName(t) << " " << RedOpName(op) << ": " << r.error().ToString();
      for (const auto& row : r->rows)
        EXPECT_EQ(row.out_of_place.wrong, 0)
            << DataTypeName(t) << " " << RedOpName(op) << " " << row.bytes;
    }
  }
}

TEST(BenchGpu, CudaGraphMode) {
  BACKEND_OR_SKIP(b);
  RunOptions o = Quick(1 << 20);
  o.iters = 0;
  o.graph_iters = 10;
  auto r = RunCollective(*b, nullptr, CollectiveType::kAllReduce, o);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_TRUE(r->cuda_graph);
  for (const auto& row : r->rows) {
    EXPECT_EQ(row.out_of_place.iterations % 10, 0);
    EXPECT_EQ(row.out_of_place.wrong, 0);
  }
}

// A replayed call of `count` floats, with the reduction sum where it takes one.
ReplayCall FloatCall(CollectiveType t, uint64_t count) {
  ReplayCall c;
  c.type = t;
  c.dtype = 7;  // float
  c.red_op = HasRedOp(t) ? 0 : -1;
  c.count = count;
  return c;
}

// A plan of one group of every rank, its calls to be added.
ReplayPlan WorldPlan(int n) {
  ReplayPlan plan;
  plan.world_size = n;
  ReplayGroup& g = plan.groups.emplace_back();
  g.name = "0";
  g.size = n;
  return plan;
}

TEST(BenchGpu, ReplayOfAMixedSequenceMatchesTheSweep) {
  // A step of three kinds and sizes on every visible GPU: each shape alone must give the
  // busbw the sweep gives at that size (the same measurement), and the sequence its sum.
  BACKEND_OR_SKIP(b);
  const int n = b->Info().world_size;
  ReplayPlan plan = WorldPlan(n);
  ReplayGroup& g = plan.groups[0];
  g.steps = 1;
  auto call = [](CollectiveType t, uint64_t count) {
    ReplayCall c = FloatCall(t, count);
    c.step = 0;
    c.in_job_ns = 1000000;
    return c;
  };
  for (int k = 0; k < 4; ++k) g.calls.push_back(call(CollectiveType::kAllReduce, 8u << 20));
  g.calls.push_back(call(CollectiveType::kAllGather, 1u << 20));
  g.calls.push_back(call(CollectiveType::kBroadcast, 1u << 10));
  ReplayOptions o;
  o.run.check = true;
  auto r = RunReplay(*b, nullptr, plan, o);
  ASSERT_TRUE(r) << r.error().ToString();
  ASSERT_EQ(r->groups.size(), 1u);
  const ReplayGroupResult& out = r->groups[0];
  ASSERT_EQ(out.shapes.size(), 3u);
  double sum_us = 0;
  for (const ReplayShape& s : out.shapes) {
    EXPECT_EQ(s.alone.wrong, 0) << CollectiveTypeName(s.type);
    EXPECT_GT(s.sequence_us, 0);
    sum_us += s.sequence_us * s.job_calls;
  }
  EXPECT_NEAR(out.replay_sequence_us, sum_us, 0.25 * sum_us);
  RunOptions sweep = Quick(32u << 20);
  sweep.min_bytes = sweep.max_bytes = 32u << 20;
  sweep.iters = 0;
  sweep.in_place = false;
  auto swept = RunCollective(*b, nullptr, CollectiveType::kAllReduce, sweep);
  ASSERT_TRUE(swept) << swept.error().ToString();
  const double swept_busbw = swept->rows[0].out_of_place.busbw_gbps;
  if (n > 1) {
    EXPECT_NEAR(out.shapes[0].alone.busbw_gbps, swept_busbw, 0.05 * swept_busbw);
  }
  std::printf("replay 32 MiB all_reduce alone %.1f GB/s busbw, sweep %.1f GB/s\n",
              out.shapes[0].alone.busbw_gbps, swept_busbw);
}

// Sends and receives (a send to the last rank, a receive from the next: shifts of n - 1) and,
// from 4 ranks, a group of half the ranks replayed on two sub-communicators side by side; every
// shape's output checked.
TEST(BenchGpu, ReplayOfSendsAndSmallerGroupsIsCorrect) {
  BACKEND_OR_SKIP(b);
  const int n = b->Info().world_size;
  if (n < 2) {
    GTEST_SKIP() << "one rank";
  }
  auto call = [](CollectiveType t, uint64_t count, int root) {
    ReplayCall c = FloatCall(t, count);
    c.root = root;
    return c;
  };

  ReplayPlan plan = WorldPlan(n);
  ReplayGroup& g = plan.groups[0];
  g.source_rank = 0;
  g.calls = {call(CollectiveType::kSend, 1u << 20, n - 1),
             call(CollectiveType::kRecv, 1u << 18, 1)};
  if (n >= 4 && n % 2 == 0) {
    ReplayGroup& half = plan.groups.emplace_back();
    half.name = "1";
    half.size = n / 2;
    half.source_rank = 0;
    half.calls = {call(CollectiveType::kAllReduce, 1u << 20, -1),
                  call(CollectiveType::kBroadcast, 1u << 16, 1)};
  }
  ReplayOptions o;
  o.run.check = true;
  auto r = RunReplay(*b, nullptr, plan, o);
  ASSERT_TRUE(r) << r.error().ToString();
  ASSERT_EQ(r->groups.size(), plan.groups.size());
  for (const ReplayGroupResult& out : r->groups)
    for (const ReplayShape& s : out.shapes) {
      EXPECT_EQ(s.alone.wrong, 0) << out.name << " " << CollectiveTypeName(s.type);
      EXPECT_GT(s.alone.busbw_gbps, 0);
    }
  EXPECT_EQ(r->groups[0].shapes[0].type, CollectiveType::kSendRecv);
  if (r->groups.size() > 1) {
    EXPECT_EQ(r->groups[1].side_by_side, 2);
  }
}

TEST(BenchGpu, PeerCopies) {
  BACKEND_OR_SKIP(b);
  if (b->Info().local_ranks < 2) {
    GTEST_SKIP() << "one GPU";
  }
  RunOptions o;
  o.p2p_bytes = 64 << 20;
  auto r = RunP2p(*b, nullptr, o);
  ASSERT_TRUE(r) << r.error().ToString();
  for (const auto& p : r->p2p)
    if (p.waived.empty()) {
      EXPECT_GT(p.bandwidth_gbps, 1) << p.method << " " << p.src << "->" << p.dst;
    }
}

TEST(BenchGpu, WatchdogAbortsACollectiveARankNeverJoins) {
  BackendOptions bo;
  bo.fault_skip_rank = 1;
  BACKEND_OR_SKIP(b, bo);
  if (b->Info().local_ranks < 2) {
    GTEST_SKIP() << "one GPU";
  }
  Watchdog wd(2.0, b.get());
  b->SetWatchdog(&wd);
  RunOptions o = Quick(64);
  auto start = std::chrono::steady_clock::now();
  auto r = RunCollective(*b, &wd, CollectiveType::kAllReduce, o);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  b->SetWatchdog(nullptr);
  ASSERT_FALSE(r);
  EXPECT_TRUE(wd.fired());
  EXPECT_LT(s, 20);
  EXPECT_NE(r.error().message.find("rank 0"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("all_reduce"), std::string::npos);
}

}  // namespace
}  // namespace commdx::bench
