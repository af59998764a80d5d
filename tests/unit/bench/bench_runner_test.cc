#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "bench/cases.h"
#include "bench/coll_runner.h"
#include "bench/fake_backend.h"
#include "bench/measure.h"
#include "bench/p2p_runner.h"
#include "bench/repro_runner.h"
#include "bench/stats.h"
#include "bench/tcp_exchange.h"
#include "bench/watchdog.h"

namespace commdx::bench {
namespace {

RunOptions Small() {
  RunOptions o;
  o.min_bytes = 8;
  o.max_bytes = 1ull << 30;
  o.factor = 8;
  return o;
}

TEST(BenchStats, PercentilesAndSlowestRank) {
  EXPECT_DOUBLE_EQ(Median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(Median({4, 1, 2, 3}), 2.5);
  EXPECT_DOUBLE_EQ(Percentile({0, 10}, 0.1), 1);
  TimeMatrix t = {{10, 11, 12}, {20, 21, 90}};
  auto s = Summarize(t);
  EXPECT_EQ(s.slowest_rank, 1);
  EXPECT_DOUBLE_EQ(s.median_ns, 21);
  EXPECT_EQ(s.samples, 3);
}

TEST(BenchMeasure, FixedCountIsExactAndAdaptiveStopsWhenStable) {
  RunOptions o;
  o.iters = 37;
  int calls = 0;
  auto run = [&](int n) -> Result<TimeMatrix> {
    ++calls;
    return TimeMatrix{std::vector<double>(static_cast<size_t>(n), 1000.0)};
  };
  auto fixed = MeasureAdaptive(run, o);
  ASSERT_TRUE(fixed);
  EXPECT_EQ((*fixed)[0].size(), 37u);
  EXPECT_EQ(calls, 1);
  o.iters = 0;
  calls = 0;
  auto adaptive = MeasureAdaptive(run, o);  // constant times: stable after the second batch
  EXPECT_EQ(calls, 2);
  EXPECT_EQ((*adaptive)[0].size(), 10u);
  // A budget smaller than one batch still gives min_iters samples.
  o.budget_ms = 0.001;
  calls = 0;
  auto slow = MeasureAdaptive(
      [&](int n) -> Result<TimeMatrix> {
        ++calls;
        return TimeMatrix{std::vector<double>(static_cast<size_t>(n), 1e9 * (calls % 2 + 1))};
      },
      o);
  EXPECT_EQ((*slow)[0].size(), static_cast<size_t>(o.min_iters));
  // Graph batches are always the graph size.
  o = RunOptions{};
  o.iters = 45;
  std::vector<int> sizes;
  auto g = MeasureAdaptive(
      [&](int n) -> Result<TimeMatrix> {
        sizes.push_back(n);
        return TimeMatrix{std::vector<double>(static_cast<size_t>(n), 5.0)};
      },
      o, 20);
  EXPECT_EQ(sizes, (std::vector<int>{20, 20, 20}));
  // A backend with a batch limit (gated launches) gets fixed counts in pieces.
  sizes.clear();
  o.iters = 300;
  auto capped = MeasureAdaptive(
      [&](int n) -> Result<TimeMatrix> {
        sizes.push_back(n);
        return TimeMatrix{std::vector<double>(static_cast<size_t>(n), 5.0)};
      },
      o, 0, 128);
  EXPECT_EQ(sizes, (std::vector<int>{128, 128, 44}));
  EXPECT_EQ((*capped)[0].size(), 300u);
}

TEST(BenchRunner, SweepComputesNcclTestsBandwidths) {
  FakeOptions fo;
  fo.busbw_gbps = 300;
  fo.latency_us = 10;
  fo.jitter = 0;
  FakeBackend b(fo);
  auto r = RunCollective(b, nullptr, CollectiveType::kAllReduce, Small());
  ASSERT_TRUE(r) << r.error().ToString();
  ASSERT_EQ(r->rows.size(), 10u);  // 8 B .. 1 GiB, x8
  const BenchRow& big = r->rows.back();
  EXPECT_EQ(big.bytes, 1ull << 30);
  EXPECT_EQ(big.count, (1ull << 30) / 4);
  // t = 10 us + bytes * 2(n-1)/n / 300 GB/s; busbw = algbw * 2(n-1)/n
  double t_us = 10 + (1ull << 30) / 300e3;
  EXPECT_NEAR(big.out_of_place.time_us, t_us, 1e-6 * t_us);
  EXPECT_NEAR(big.out_of_place.algbw_gbps, (1ull << 30) / (t_us * 1e3), 1e-6);
  EXPECT_NEAR(big.out_of_place.busbw_gbps, big.out_of_place.algbw_gbps, 1e-9);  // n = 2
  EXPECT_TRUE(big.in_place.valid);
  EXPECT_EQ(big.out_of_place.wrong, 0);
  EXPECT_NEAR(r->rows.front().out_of_place.time_us, 10, 1e-3);  // + 8 B at 300 GB/s
  EXPECT_EQ(r->rows.front().redop, "sum");
  EXPECT_EQ(b.reserved_bytes(), 2ull << 30);
}

TEST(BenchRunner, WarmupAndFixedIterationsAreObeyed) {
  FakeBackend b(FakeOptions{});
  RunOptions o = Small();
  o.max_bytes = 64;  // two sizes
  o.in_place = false;
  o.warmup = 4;
  o.iters = 7;
  auto r = RunCollective(b, nullptr, CollectiveType::kAllReduce, o);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->rows[1].out_of_place.iterations, 7);
  // first point: 20 warm-up iterations (first use after init); then -w 4; each 7 timed + 1 check
  EXPECT_EQ(b.timed_ops(), (20 + 7 + 1) + (4 + 7 + 1));
}

TEST(BenchRunner, InPlaceOfSendRecvIsNotChecked) {
  FakeBackend b(FakeOptions{});
  RunOptions o = Small();
  o.max_bytes = 1 << 20;
  auto r = RunCollective(b, nullptr, CollectiveType::kSendRecv, o);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->rows[0].out_of_place.wrong, 0);
  EXPECT_EQ(r->rows[0].in_place.wrong, -1);  // nccl-tests prints N/A too
  EXPECT_EQ(r->rows[0].redop, "none");
}

TEST(BenchRunner, WrongElementsAndSlowRankAreReported) {
  FakeOptions fo;
  fo.ranks = 4;
  fo.wrong_elements = 3;
  fo.slow_rank = 2;
  fo.slow_factor = 2;
  FakeBackend b(fo);
  RunOptions o = Small();
  o.max_bytes = 64;
  o.in_place = false;
  auto r = RunCollective(b, nullptr, CollectiveType::kAllReduce, o);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->rows[0].out_of_place.wrong, 12);  // 3 on each of 4 ranks
  EXPECT_EQ(r->rows[0].out_of_place.slowest_rank, 2);
  EXPECT_NEAR(r->rows[0].out_of_place.time_us, 20, 0.5);
  EXPECT_FALSE(r->rows[0].in_place.valid);
}

TEST(BenchRunner, DefaultSweepIsCappedToGpuMemory) {
  FakeOptions fo;
  fo.mem_bytes = 4ull << 30;
  FakeBackend b(fo);
  RunOptions o;  // default 8 B .. 8 GiB
  o.factor = 4;
  auto r = RunCollective(b, nullptr, CollectiveType::kAllReduce, o);
  ASSERT_TRUE(r);
  // all_reduce needs 2x the size; 40% of 4 GiB leaves 512 MiB as the largest size.
  EXPECT_EQ(r->rows.back().bytes, 512ull << 20);
  ASSERT_FALSE(r->notes.empty());
  o.max_bytes_explicit = true;  // an explicit -e is obeyed, and fails cleanly
  auto oom = RunCollective(b, nullptr, CollectiveType::kAllReduce, o);
  ASSERT_FALSE(oom);
  EXPECT_NE(oom.error().message.find("out of memory"), std::string::npos);
}

TEST(BenchRunner, RootMustBeARank) {
  FakeBackend b(FakeOptions{});
  RunOptions o = Small();
  o.root = 5;
  auto r = RunCollective(b, nullptr, CollectiveType::kBroadcast, o);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kUsage);
}

TEST(BenchWatchdog, AbortsAHungCollectiveAndNamesIt) {
  FakeOptions fo;
  fo.hang_at_bytes = 512;
  FakeBackend b(fo);
  Watchdog wd(0.3, &b);
  b.SetWatchdog(&wd);
  RunOptions o = Small();
  o.max_bytes = 4096;
  auto start = std::chrono::steady_clock::now();
  auto r = RunCollective(b, &wd, CollectiveType::kAllReduce, o);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(r);
  EXPECT_TRUE(wd.fired());
  EXPECT_LT(s, 5.0);
  EXPECT_EQ(r.error().code, ErrorCode::kEnvironment);
  EXPECT_NE(r.error().message.find("all_reduce 512 B float sum out-of-place"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("rank 1"), std::string::npos);
  EXPECT_NE(r.error().message.find("ncclCommAbort"), std::string::npos);
}

TEST(BenchWatchdog, QuietWhileProgressIsMade) {
  FakeBackend b(FakeOptions{});
  Watchdog wd(0.2, &b);
  wd.Arm("x");
  for (int i = 0; i < 6; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(80));
    wd.Beat();
  }
  wd.Disarm();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // disarmed: never fires
  EXPECT_FALSE(wd.fired());
}

TEST(BenchP2p, MeasuresEveryDirectedPairAndBothDirections) {
  FakeOptions fo;
  fo.ranks = 3;
  fo.jitter = 0;
  fo.asym_src = 2;
  fo.asym_dst = 0;
  FakeBackend b(fo);
  RunOptions o;
  o.p2p_bytes = 1 << 28;
  auto r = RunP2p(b, nullptr, o);
  ASSERT_TRUE(r);
  // ce + sm: 6 directed pairs uni + 3 pairs x 2 directions bi, each.
  EXPECT_EQ(r->p2p.size(), 24u);
  double slow = 0, fast = 0;
  for (const auto& p : r->p2p)
    if (p.method == "ce" && !p.bidirectional) {
      if (p.src == 2 && p.dst == 0) slow = p.bandwidth_gbps;
      if (p.src == 0 && p.dst == 1) fast = p.bandwidth_gbps;
      EXPECT_NEAR(p.latency_us, 2, 0.01);
    }
  EXPECT_NEAR(slow / fast, 0.5, 0.01);
}

TEST(BenchP2p, WaivedWithoutAllGpusInOneProcess) {
  FakeOptions fo;
  fo.ranks = 1;
  FakeBackend b(fo);
  auto r = RunP2p(b, nullptr, RunOptions{});
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->p2p.empty());
  ASSERT_EQ(r->notes.size(), 1u);
  EXPECT_NE(r->notes[0].find("waived"), std::string::npos);
}

TEST(BenchRepro, OverlapHidesCommunicationAndSmallBucketsCostLatency) {
  FakeOptions fo;
  fo.jitter = 0;
  fo.latency_us = 20;
  fo.busbw_gbps = 100;
  FakeBackend b(fo);
  RunOptions o;
  o.grad_bytes = 100ull << 20;
  o.compute_ms = 5;
  o.bucket_bytes = {64 << 10, 25 << 20};
  auto r = RunRepro(b, nullptr, o);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->repro.size(), 2u);
  const ReproPoint& tiny = r->repro[0];
  const ReproPoint& ddp = r->repro[1];
  EXPECT_EQ(ddp.buckets, 4);
  EXPECT_NEAR(ddp.compute_only_us, 5000, 1);
  EXPECT_LT(ddp.step_overlap_us, ddp.step_serial_us);
  EXPECT_NEAR(ddp.step_serial_us, ddp.compute_only_us + ddp.comm_only_us, 1);
  EXPECT_GT(tiny.comm_only_us, ddp.comm_only_us);  // 1600 launches of 20 us latency
}

TEST(BenchCases, RegistryHasStableKeys) {
  std::vector<std::string> keys;
  for (const auto& c : Cases()) keys.push_back(c.key);
  EXPECT_EQ(keys,
            (std::vector<std::string>{"all_reduce", "all_gather", "reduce_scatter", "broadcast",
                                      "reduce", "alltoall", "sendrecv", "p2p", "repro"}));
  EXPECT_FALSE(FindCase("p2p")->needs_nccl);
  EXPECT_EQ(FindCase("nope"), nullptr);
}

TEST(BenchTcpExchange, HandsRankZerosBlobToThePeer) {
  LaunchEnv e0;
  e0.mode = "torchrun";
  e0.world_size = 2;
  e0.master_addr = "127.0.0.1";
  e0.port = 39000 + static_cast<int>(getpid() % 2000);
  LaunchEnv e1 = e0;
  e1.rank = 1;
  Result<std::string> got = MakeError(ErrorCode::kInternal, "unset");
  std::thread peer([&] { got = ExchangeBlob(e1, "", 10); });
  auto served = ExchangeBlob(e0, std::string("id\0id", 5), 10);
  peer.join();
  ASSERT_TRUE(served) << served.error().ToString();
  ASSERT_TRUE(got) << got.error().ToString();
  EXPECT_EQ(*got, std::string("id\0id", 5));
}

TEST(BenchTcpExchange, NamesTheRankThatNeverCame) {
  LaunchEnv e0;
  e0.mode = "torchrun";
  e0.world_size = 3;
  e0.master_addr = "127.0.0.1";
  e0.port = 41000 + static_cast<int>(getpid() % 2000);
  auto r = ExchangeBlob(e0, "x", 0.3);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("rank(s) 1, 2 did not connect"), std::string::npos)
      << r.error().message;
}

}  // namespace
}  // namespace commdx::bench
