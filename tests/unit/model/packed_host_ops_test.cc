// A built rank's host ops are kept packed (model/trace.h, PackedHostOps): what is read back must be
// what was packed, op for op, from the start or from any time, across block edges, with times
// far apart, equal starts, zero and huge durations, every flag and both kinds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "model/trace.h"

namespace commdx {
namespace {

bool Same(const HostOp& a, const HostOp& b) {
  return a.start_ns == b.start_ns && a.end_ns == b.end_ns && a.name == b.name &&
         a.thread == b.thread && a.kind == b.kind && a.flags == b.flags;
}

std::vector<HostOp> RandomOps(size_t n, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<HostOp> ops(n);
  int64_t t = 1'727'000'000'000'000'000;  // epoch ns, as real traces have
  for (size_t i = 0; i < n; ++i) {
    const uint64_t r = rng();
    t += (r % 7 == 0) ? 0 : static_cast<int64_t>(r % 5'000'000);  // equal starts too
    if (i == n / 2) t += 3'600'000'000'000;                       // an hour's gap
    ops[i].start_ns = t;
    ops[i].end_ns = t + static_cast<int64_t>((r >> 20) % (i % 50 == 0 ? 10'000'000'000 : 100'000));
    ops[i].name = static_cast<uint32_t>((r >> 40) % 70'000);
    ops[i].thread = static_cast<uint32_t>((r >> 8) % 300);
    ops[i].kind = (r >> 3) & 1 ? HostOpKind::kUserAnnotation : HostOpKind::kCpuOp;
    ops[i].flags = static_cast<uint8_t>(r >> 56);
  }
  return ops;
}

TEST(PackedHostOps, UnpacksToWhatWasPacked) {
  for (size_t n : {0u, 1u, 127u, 128u, 129u, 1000u, 20'000u}) {
    const std::vector<HostOp> ops = RandomOps(n, static_cast<uint32_t>(n));
    const PackedHostOps packed(ops);
    ASSERT_EQ(packed.size(), n);
    const std::vector<HostOp> back = packed.Unpack();
    ASSERT_EQ(back.size(), n);
    for (size_t i = 0; i < n; ++i) ASSERT_TRUE(Same(back[i], ops[i])) << "n " << n << " op " << i;
    if (n >= 1000) {
      EXPECT_LT(packed.bytes(), n * sizeof(HostOp) / 2);  // the point of it
    }
  }
}

// ForEachFrom(t) visits what a binary search over the vector would, from the first op that
// starts at or after t; the visitor stops it.
TEST(PackedHostOps, ReadsFromAnyTimeAsTheVectorWould) {
  const std::vector<HostOp> ops = RandomOps(5000, 7);
  const PackedHostOps packed(ops);
  std::mt19937_64 rng(11);
  std::vector<int64_t> times = {INT64_MIN,           ops.front().start_ns,
                                ops.back().start_ns, ops.back().start_ns + 1,
                                ops[128].start_ns,   ops[1280].start_ns};
  for (int i = 0; i < 200; ++i)
    times.push_back(ops.front().start_ns +
                    static_cast<int64_t>(
                        rng() % static_cast<uint64_t>(ops.back().start_ns - ops.front().start_ns)));
  for (int64_t from : times) {
    auto it = std::lower_bound(ops.begin(), ops.end(), from,
                               [](const HostOp& op, int64_t t) { return op.start_ns < t; });
    size_t want = static_cast<size_t>(it - ops.begin()), seen = 0;
    packed.ForEachFrom(from, [&](const HostOp& op) {
      EXPECT_TRUE(Same(op, ops[want])) << "from " << from << " at " << want;
      ++want, ++seen;
      return seen < 300;  // stops when told
    });
    EXPECT_EQ(seen, std::min<size_t>(300, ops.end() - it)) << from;
  }
}

// The trace's readers take either form: the vector of a rank made by hand, the packed ops of a
// built one.
TEST(PackedHostOps, RankTraceReadsEitherForm) {
  RankTrace t;
  t.host_ops = RandomOps(400, 3);
  const std::vector<HostOp> plain = t.HostOps();
  int64_t sum_plain = 0;
  t.ForEachHostOp([&](const HostOp& op) { sum_plain += op.end_ns - op.start_ns; });
  t.PackHostOps();
  EXPECT_TRUE(t.host_ops.empty());
  EXPECT_EQ(t.HostOpCount(), 400u);
  const std::vector<HostOp> packed = t.HostOps();
  ASSERT_EQ(packed.size(), plain.size());
  for (size_t i = 0; i < plain.size(); ++i) EXPECT_TRUE(Same(packed[i], plain[i])) << i;
  int64_t sum_packed = 0;
  t.ForEachHostOp([&](const HostOp& op) { sum_packed += op.end_ns - op.start_ns; });
  EXPECT_EQ(sum_packed, sum_plain);
}

}  // namespace
}  // namespace commdx
