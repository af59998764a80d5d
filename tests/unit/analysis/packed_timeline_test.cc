// PackedIntervals / PackedTimeline: a rank's timeline packed as varint differences comes back
// exactly, and takes a fraction of the bytes.
#include "analysis/packed_timeline.h"

#include <gtest/gtest.h>

#include <climits>

namespace commdx::analysis {
namespace {

bool Same(const Intervals& a, const Intervals& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].start != b[i].start || a[i].end != b[i].end) return false;
  return true;
}

TEST(PackedIntervals, RoundTripsAnySequence) {
  const Intervals cases[] = {
      {},
      {{0, 1}},
      // Epoch nanoseconds (a trace with baseTimeNanoseconds), kernels microseconds apart.
      {{1'733'500'000'123'456'789, 1'733'500'000'123'460'000},
       {1'733'500'000'123'470'000, 1'733'500'000'123'470'001}},
      // Touching, overlapping and backwards: not what the timeline makes, still exact.
      {{10, 20}, {20, 30}, {25, 26}, {-5, -1}},
      {{INT64_MIN, INT64_MIN + 1}, {INT64_MAX - 1, INT64_MAX}, {0, 0}},
  };
  for (const Intervals& x : cases) {
    const PackedIntervals p(x);
    EXPECT_EQ(p.size(), x.size());
    EXPECT_TRUE(Same(p.Unpack(), x));
  }
}

TEST(PackedIntervals, KernelsMicrosecondsApartTakeAFewBytesEach) {
  Intervals x;
  int64_t t = 1'733'500'000'000'000'000;
  for (int i = 0; i < 10'000; ++i) {
    x.push_back({t, t + 35'000 + (i % 7) * 1'000});  // 35-41 µs kernels
    t = x.back().end + 4'000 + (i % 3) * 500;        // 4-5 µs launch gaps
  }
  const PackedIntervals p(x);
  EXPECT_TRUE(Same(p.Unpack(), x));
  EXPECT_LE(p.bytes(), 6u * x.size());  // against 16 bytes unpacked
}

TEST(PackedTimeline, EveryListAndTheIdleChargesComeBack) {
  RankTimeline tl;
  tl.compute = {{0, 10}, {20, 30}};
  tl.comm = {{5, 25}};
  tl.other = {{40, 41}};
  tl.busy = {{0, 30}, {40, 41}};
  tl.data_loading = {{50, 60}};
  tl.host_sync = {{31, 39}};
  tl.idle.queued = {{30, 31}};
  tl.idle.capture = {{70, 71}};
  tl.idle.data = {{50, 60}};
  tl.idle.alloc = {{61, 62}};
  tl.idle.sync = {{31, 39}};
  tl.idle.host_gap = {{63, 69}};
  tl.idle.launch = {{39, 40}};
  tl.idle.sync_charges = {{3, 8}};
  tl.idle.launch_ops = {{0, 1}, {7, 2}};
  tl.idle.host_gaps = {HostGapCharge{63, 69, 4, 5, 6}};
  const RankTimeline back = PackedTimeline(tl).Unpack();
  EXPECT_TRUE(Same(back.compute, tl.compute));
  EXPECT_TRUE(Same(back.comm, tl.comm));
  EXPECT_TRUE(Same(back.other, tl.other));
  EXPECT_TRUE(Same(back.busy, tl.busy));
  EXPECT_TRUE(Same(back.data_loading, tl.data_loading));
  EXPECT_TRUE(Same(back.host_sync, tl.host_sync));
  EXPECT_TRUE(Same(back.idle.queued, tl.idle.queued));
  EXPECT_TRUE(Same(back.idle.capture, tl.idle.capture));
  EXPECT_TRUE(Same(back.idle.data, tl.idle.data));
  EXPECT_TRUE(Same(back.idle.alloc, tl.idle.alloc));
  EXPECT_TRUE(Same(back.idle.sync, tl.idle.sync));
  EXPECT_TRUE(Same(back.idle.host_gap, tl.idle.host_gap));
  EXPECT_TRUE(Same(back.idle.launch, tl.idle.launch));
  EXPECT_EQ(back.idle.sync_charges, tl.idle.sync_charges);
  EXPECT_EQ(back.idle.launch_ops, tl.idle.launch_ops);
  ASSERT_EQ(back.idle.host_gaps.size(), 1u);
  EXPECT_EQ(back.idle.host_gaps[0].idle_ns, 6);
  EXPECT_EQ(back.idle.host_gaps[0].after, 5u);
}

}  // namespace
}  // namespace commdx::analysis
