// EnclosingOps passes over blocks of host ops that end too early; its answer must be that of
// walking back one op at a time over the same window. Checked against that walk on random,
// nested and overlapping ops on a few threads, including windows cut by the 20,000-op limit.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "analysis/trace_host_sync.h"

namespace commdx::analysis {
namespace {

std::pair<int32_t, int32_t> WalkBack(const RankTrace& t, uint32_t thread, int64_t start,
                                     int64_t end) {
  auto it = std::upper_bound(t.host_ops.begin(), t.host_ops.end(), start,
                             [](int64_t ts, const HostOp& op) { return ts < op.start_ns; });
  int32_t inner = -1, outer = -1;
  for (size_t walked = 0; it != t.host_ops.begin() && walked < 20000; ++walked) {
    --it;
    if (it->thread != thread || it->end_ns < end) continue;
    int32_t idx = static_cast<int32_t>(it - t.host_ops.begin());
    if (inner < 0) inner = idx;
    if (!(it->flags & kHostFlagStep)) outer = idx;
  }
  return {inner, outer};
}

TEST(HostSyncWalk, BlocksPassedOverGiveTheOneByOneAnswer) {
  std::mt19937_64 rng(21);
  for (int round = 0; round < 4; ++round) {
    RankTrace t;
    const int n = round < 2 ? 3000 : 45000;  // the last two exceed the walk's window
    int64_t ts = 0;
    for (int i = 0; i < n; ++i) {
      ts += static_cast<int64_t>(rng() % 50);
      HostOp op;
      op.start_ns = ts;
      // Mostly short ops, some long ones (steps, outer modules) and a few very long.
      uint64_t r = rng() % 100;
      op.end_ns = ts + (r < 90 ? 1 + rng() % 40 : r < 99 ? 1 + rng() % 5000 : 1 + rng() % 900000);
      op.thread = static_cast<uint32_t>(rng() % 3);
      op.flags = rng() % 10 == 0 ? kHostFlagStep : kHostFlagNone;
      t.host_ops.push_back(op);
    }
    HostOpEnds ends(t.host_ops);
    int found = 0;
    for (int q = 0; q < 3000; ++q) {
      int64_t start = static_cast<int64_t>(rng() % static_cast<uint64_t>(ts + 100));
      int64_t end = start + static_cast<int64_t>(rng() % 3000);
      uint32_t thread = static_cast<uint32_t>(rng() % 3);
      auto want = WalkBack(t, thread, start, end);
      ASSERT_EQ(EnclosingOps(t.host_ops, ends, thread, start, end), want)
          << "round " << round << " query " << q;
      found += want.first >= 0;
    }
    EXPECT_GT(found, 100);  // the queries do find enclosing ops, not only none
  }
}

}  // namespace
}  // namespace commdx::analysis
