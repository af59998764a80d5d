#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <string>

#include "bench/event_groups.h"
#include "bench/host_codec.h"
#include "bench/launch.h"
#include "bench/pattern.h"
#include "bench/types.h"
#include "model/bench_result.h"

namespace commdx::bench {
namespace {

TEST(BenchTypes, ParsesSizesLikeNcclTests) {
  EXPECT_EQ(*ParseSize("8"), 8u);
  EXPECT_EQ(*ParseSize("64K"), 65536u);
  EXPECT_EQ(*ParseSize("8M"), 8u << 20);
  EXPECT_EQ(*ParseSize("8G"), 8ull << 30);
  EXPECT_EQ(*ParseSize("1.5k"), 1536u);
  EXPECT_EQ(*ParseSize("256MB"), 256u << 20);
  EXPECT_FALSE(ParseSize("eight"));
  EXPECT_FALSE(ParseSize("-1"));
}

TEST(BenchTypes, SweepMatchesNcclTestsFactorAndStep) {
  auto f4 = SweepSizes(8, 8ull << 30, 4, 0);
  ASSERT_EQ(f4.size(), 16u);  // 8, 32, ..., 8 GiB as in the reference all_reduce run
  EXPECT_EQ(f4.front(), 8u);
  EXPECT_EQ(f4[1], 32u);
  EXPECT_EQ(f4.back(), 8ull << 30);
  auto step = SweepSizes(100, 400, 1, 100);
  EXPECT_EQ(step, (std::vector<uint64_t>{100, 200, 300, 400}));
  EXPECT_TRUE(SweepSizes(10, 5, 2, 0).empty());
}

TEST(BenchTypes, SizesAndCountsFollowNcclTests) {
  // all_gather: size = total received bytes, count = elements per rank.
  CollSpec ag;
  ag.kind = CollectiveType::kAllGather;
  ag.nranks = 2;
  ag.count = CountForBytes(ag.kind, DataType::kFloat, 2, 2147483648ull);
  EXPECT_EQ(ag.count, 268435456u);  // nccl-tests-allgather-base.txt last row
  EXPECT_EQ(ag.SizeBytes(), 2147483648ull);
  EXPECT_EQ(ag.SendElems(), ag.count);
  EXPECT_EQ(ag.RecvElems(), 2 * ag.count);
  CollSpec rs = ag;
  rs.kind = CollectiveType::kReduceScatter;
  EXPECT_EQ(rs.SendElems(), 2 * rs.count);
  EXPECT_EQ(rs.RecvElems(), rs.count);
  CollSpec ar;
  ar.nranks = 2;
  ar.dtype = DataType::kBfloat16;
  ar.count = CountForBytes(CollectiveType::kAllReduce, DataType::kBfloat16, 2, 1024);
  EXPECT_EQ(ar.count, 512u);
  EXPECT_EQ(ar.SizeBytes(), 1024u);
}

TEST(BenchTypes, BusBandwidthFactors) {
  EXPECT_DOUBLE_EQ(BusBwFactor(CollectiveType::kAllReduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(BusBwFactor(CollectiveType::kAllGather, 2), 0.5);
  EXPECT_DOUBLE_EQ(BusBwFactor(CollectiveType::kAllToAll, 4), 0.75);
  EXPECT_DOUBLE_EQ(BusBwFactor(CollectiveType::kSendRecv, 8), 1.0);
  EXPECT_DOUBLE_EQ(BusBwFactor(CollectiveType::kBroadcast, 8), 1.0);
  // One rank: nccl-tests' formulas as they are; unknown rank count or kind: no factor.
  EXPECT_DOUBLE_EQ(BusBwFactor(CollectiveType::kAllReduce, 1), 0.0);
  EXPECT_DOUBLE_EQ(BusBwFactor(CollectiveType::kBroadcast, 1), 1.0);
  EXPECT_DOUBLE_EQ(BusBwFactor(CollectiveType::kAllReduce, 0), 0.0);
  EXPECT_DOUBLE_EQ(BusBwFactor(CollectiveType::kBarrier, 8), 0.0);
}

TEST(BenchTypes, NamesRoundTrip) {
  for (DataType t : AllDataTypes()) EXPECT_EQ(ParseDataType(DataTypeName(t)), t);
  EXPECT_EQ(ParseDataType("bf16"), DataType::kBfloat16);
  EXPECT_FALSE(ParseDataType("float128"));
  EXPECT_EQ(ParseRedOp("AVG"), RedOp::kAvg);
  EXPECT_EQ(ParseCollectiveType("reduce_scatter"), CollectiveType::kReduceScatter);
  EXPECT_FALSE(ParseCollectiveType("allreduce"));
  EXPECT_FALSE(ParseCollectiveType("unknown"));
  for (const char* key : {"all_reduce", "all_gather", "alltoall", "sendrecv", "barrier"})
    EXPECT_STREQ(CollectiveTypeName(*ParseCollectiveType(key)), key);
}

TEST(BenchCodec, KnownBitPatternsAndRoundTrip) {
  uint16_t h;
  EncodeValue(1.0, DataType::kHalf, &h);
  EXPECT_EQ(h, 0x3C00);
  EncodeValue(1.0, DataType::kBfloat16, &h);
  EXPECT_EQ(h, 0x3F80);
  uint8_t b;
  EncodeValue(1.0, DataType::kFp8E4M3, &b);
  EXPECT_EQ(b, 0x38);
  EncodeValue(1.0, DataType::kFp8E5M2, &b);
  EXPECT_EQ(b, 0x3C);
  EncodeValue(-2.0, DataType::kHalf, &h);
  EXPECT_EQ(h, 0xC000);
  EncodeValue(1e6, DataType::kFp8E4M3, &b);  // no inf in e4m3: saturates to 448
  EXPECT_DOUBLE_EQ(DecodeValue(&b, DataType::kFp8E4M3), 448.0);
  for (DataType t : AllDataTypes())
    for (double v : {1.0, 2.0, 3.0, 5.0, 10.0, 16.0}) {
      char buf[8] = {0};
      EncodeValue(v, t, buf);
      EXPECT_DOUBLE_EQ(DecodeValue(buf, t), v) << DataTypeName(t) << " " << v;
    }
  uint16_t nan_half = 0xFFFF;  // the poison pattern must never match an expected value
  EXPECT_TRUE(std::isnan(DecodeValue(&nan_half, DataType::kHalf)));
}

// Simulates each collective on the host from the inputs and checks pattern::Expected; send_recv
// with the peer one and two ranks on (each rank sends to rank + shift).
TEST(BenchPattern, ExpectedMatchesASimulatedCollective) {
  const int n = 3;
  const uint64_t c = 7;
  for (int coll = 0; coll <= pattern::kSendRecv; ++coll)
    for (int op : {pattern::kSum, pattern::kProd, pattern::kMax, pattern::kMin, pattern::kAvg})
      for (int shift : {1, 2}) {
        for (int rank = 0; rank < n; ++rank) {
          pattern::Params p{coll, op, 7, n, rank, 1, c, 5, shift};
          auto in = [&](int r, uint64_t i) { return pattern::InputValue(p, r, i); };
          auto reduce = [&](uint64_t i) {
            double acc = in(0, i);
            for (int r = 1; r < n; ++r) acc = pattern::Combine(op, acc, in(r, i));
            return op == pattern::kAvg ? acc / n : acc;
          };
          uint64_t out = (coll == pattern::kAllGather || coll == pattern::kAllToAll) ? n * c : c;
          for (uint64_t i = 0; i < out; ++i) {
            double want = 0;
            switch (coll) {
              case pattern::kAllReduce:
              case pattern::kReduce:
                want = reduce(i);
                break;
              case pattern::kReduceScatter:
                want = reduce(rank * c + i);
                break;
              case pattern::kBroadcast:
                want = in(1, i);
                break;
              case pattern::kAllGather:
                want = in(static_cast<int>(i / c), i % c);
                break;
              // rank j's send chunk for `rank` lands in chunk j
              case pattern::kAllToAll:
                want = in(static_cast<int>(i / c), rank * c + i % c);
                break;
              case pattern::kSendRecv:
                want = in((rank + n - shift) % n, i);
                break;
            }
            EXPECT_DOUBLE_EQ(pattern::Expected(p, i, false), want) << coll << " " << op << " " << i;
          }
        }
      }
}

TEST(BenchPattern, ProductsStayExactAndInputsVary) {
  pattern::Params p{pattern::kAllReduce, pattern::kProd, 0, 8, 0, 0, 100, 0, 1};
  for (uint64_t i = 0; i < 100; ++i) EXPECT_LE(pattern::Reduced(p, i, true), 8.0);
  pattern::Params s{pattern::kAllReduce, pattern::kSum, 0, 2, 0, 0, 100, 0, 1};
  EXPECT_NE(pattern::InputValue(s, 0, 0), pattern::InputValue(s, 0, 1));
  EXPECT_NE(pattern::InputValue(s, 0, 0), pattern::InputValue(s, 1, 0));
  s.op = pattern::kAvg;  // integer average truncates like NCCL's
  EXPECT_EQ(pattern::Reduced(s, 0, true),
            static_cast<double>(static_cast<int>(pattern::Reduced(s, 0, false))));
}

TEST(BenchLaunch, DetectsTorchrunAndMpiVariables) {
  std::map<std::string, std::string> env;
  auto get = [&](const char* k) -> const char* {
    auto it = env.find(k);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  EXPECT_EQ(DetectLaunch(get)->mode, "single_process");
  env = {{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "1"}, {"MASTER_PORT", "29500"}};
  auto missing = DetectLaunch(get);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("MASTER_ADDR"), std::string::npos);
  env["MASTER_ADDR"] = "127.0.0.1";
  auto t = DetectLaunch(get);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->mode, "torchrun");
  EXPECT_EQ(t->rank, 1);
  EXPECT_EQ(t->world_size, 2);
  EXPECT_EQ(t->port, 29501);  // torchrun's store owns MASTER_PORT
  env["COMMDX_PORT"] = "40000";
  EXPECT_EQ(DetectLaunch(get)->port, 40000);
  env = {{"OMPI_COMM_WORLD_RANK", "3"},
         {"OMPI_COMM_WORLD_SIZE", "4"},
         {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
         {"MASTER_ADDR", "node0"}};
  auto m = DetectLaunch(get);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->mode, "mpi");
  EXPECT_EQ(m->local_rank, 1);
  env = {{"RANK", "2"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "x"}};
  EXPECT_FALSE(DetectLaunch(get));
  env = {{"RANK", "0"}, {"WORLD_SIZE", "1"}};  // one process is the single-process mode
  EXPECT_EQ(DetectLaunch(get)->mode, "single_process");
}

}  // namespace
}  // namespace commdx::bench

namespace commdx::bench {
namespace {

TEST(BenchEventGroups, EachIterationGetsItsGroupsMean) {
  // 10 iterations, an event every 4: groups of 4, 4 and 2.
  TimeMatrix groups = {{400, 800, 100}, {40, 40, 20}};
  TimeMatrix per_iter = SpreadGroups(groups, 10, 4);
  ASSERT_EQ(per_iter.size(), 2u);
  EXPECT_EQ(per_iter[0], (std::vector<double>{100, 100, 100, 100, 200, 200, 200, 200, 50, 50}));
  EXPECT_EQ(per_iter[1], (std::vector<double>{10, 10, 10, 10, 10, 10, 10, 10, 10, 10}));
  // The sum is kept: the mean over the batch is what a single pair of events would give.
  double sum = 0;
  for (double t : per_iter[0]) sum += t;
  EXPECT_DOUBLE_EQ(sum, 1300);
  EXPECT_EQ(SpreadGroups(groups, 3, 1), groups);  // stride 1: unchanged
}

}  // namespace
}  // namespace commdx::bench
