// EstimateProfilerCost: recorded ops and runtime calls per step at the measured per-event costs,
// over the steps the trace does not cut; none for an Nsight Systems trace.
#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/profiler_cost.h"

namespace commdx::analysis {
namespace {

// Steps of 10 ms from 0; in each, `ops` CPU ops (one of them a user annotation, not counted)
// and `calls` runtime calls, spread over two threads.
RankTrace Steps(int n, int ops, int calls) {
  RankTrace t;
  t.names = {""};
  for (int s = 0; s < n; ++s) {
    const int64_t base = s * 10'000'000LL;
    t.steps.push_back({s, base, base + 10'000'000LL, base, base + 10'000'000LL, false});
    HostOp mark;
    mark.start_ns = base, mark.end_ns = base + 10'000'000LL;
    mark.kind = HostOpKind::kUserAnnotation;
    t.host_ops.push_back(mark);
    for (int i = 0; i < ops; ++i) {
      HostOp op;
      op.start_ns = base + 1000 + i * 1000LL, op.end_ns = op.start_ns + 500;
      op.thread = static_cast<uint32_t>(i % 2);
      t.host_ops.push_back(op);
    }
    for (int i = 0; i < calls; ++i) {
      RuntimeCall rc;
      rc.start_ns = base + 1500 + i * 1000LL, rc.end_ns = rc.start_ns + 200;
      t.runtime.push_back(rc);
    }
  }
  return t;
}

TEST(ProfilerCost, OpsAndCallsPerStepAtTheMeasuredCosts) {
  const ProfilerCost c = EstimateProfilerCost(Steps(4, 100, 30));
  ASSERT_TRUE(c.estimated);
  EXPECT_DOUBLE_EQ(c.ops_per_step, 100);
  EXPECT_DOUBLE_EQ(c.calls_per_step, 30);
  EXPECT_EQ(c.per_step_ns, 100 * kProfilerOpCostNs + 30 * kProfilerCallCostNs);
}

TEST(ProfilerCost, CutStepsAreLeftOutUnlessAllAreCut) {
  RankTrace t = Steps(3, 100, 30);
  // The last step cut: its extra ops must not count.
  t.steps.back().cut = true;
  for (int i = 0; i < 50; ++i) {
    HostOp op;
    op.start_ns = 25'000'000LL + i * 1000LL, op.end_ns = op.start_ns + 10;
    t.host_ops.push_back(op);
  }
  std::sort(t.host_ops.begin(), t.host_ops.end(),
            [](const HostOp& a, const HostOp& b) { return a.start_ns < b.start_ns; });
  EXPECT_DOUBLE_EQ(EstimateProfilerCost(t).ops_per_step, 100);
  for (Step& s : t.steps) s.cut = true;
  EXPECT_DOUBLE_EQ(EstimateProfilerCost(t).ops_per_step, 350.0 / 3);
}

TEST(ProfilerCost, NoneForNsysOrWithoutSteps) {
  RankTrace nsys = Steps(2, 10, 10);
  nsys.schema_version = "nsys export 3.11";
  EXPECT_FALSE(EstimateProfilerCost(nsys).estimated);
  EXPECT_FALSE(EstimateProfilerCost(RankTrace{}).estimated);
}

}  // namespace
}  // namespace commdx::analysis
