// GPU time held up by something the trace does not record, on small hand-made timelines:
// trace.queued_idle (the GPU idles with its next work already launched) and trace.shared_gpu
// (kernels held up by another process's time slices). Times are ns on one clock.
#include <gtest/gtest.h>

#include "analysis/registry.h"
#include "unit/analysis/hand_timeline.h"

namespace commdx::analysis {
namespace {

using namespace hand;  // NOLINT: the hand-made timeline's names

Job OneRank(Timeline& x, int64_t steps, int64_t step_ns) {
  x.t.file = "hand-made";
  x.t.rank = 0;
  x.t.step_source = StepSource::kProfilerStep;
  x.Finish(0, steps * step_ns);
  Job job;
  job.trace.ranks.push_back(std::move(x.t));
  return job;
}

// Four 10 ms steps: a kernel runs [0.1, 2) ms; the next one was launched at 1 ms, while the
// first ran, but starts only at `next_start`; the CPU sits in an op the whole step.
Job QueuedSteps(int64_t next_start, Name via = kLaunch) {
  Timeline x;
  for (int64_t s = 0; s < 4; ++s) {
    const int64_t b = s * 10 * kMs;
    x.t.steps.push_back(Step{s, b, b + 10 * kMs, b, b + 10 * kMs});
    x.Op(b, b + 10 * kMs - 1, kAdd);
    x.Kernel(b + 100'000, b + 2 * kMs, b + 10, b + 20);
    x.Kernel(b + next_start, b + 10 * kMs, b + kMs, b + kMs + 10, 0, kKernelB, 0, via);
  }
  return OneRank(x, 4, 10 * kMs);
}

TEST(QueuedIdle, WorkLaunchedBeforeTheGapIsNotTheCpus) {
  Job job = QueuedSteps(5 * kMs);
  auto findings = RunAnalyzers(job, {}, {Source::kTrace});
  const Finding* q = FindId(findings, "trace.queued_idle");
  ASSERT_NE(q, nullptr);
  EXPECT_NEAR(q->saving_ns_per_step.value_or(0), 3.0 * kMs, 1);  // [2, 5) ms
  EXPECT_EQ(q->severity, Severity::kWarning);                    // 30% of the step
  EXPECT_NE(q->detail.find("The op that ends the most of it: 'kernel_b'"), std::string::npos)
      << q->detail;
  EXPECT_EQ(q->detail.find("CUDA-graph"), std::string::npos) << q->detail;
  EXPECT_EQ(FindId(findings, "trace.launch_bound"), nullptr);
}

TEST(QueuedIdle, InsideGraphReplaysSaysSo) {
  Job job = QueuedSteps(5 * kMs, kGraphLaunch);
  const auto findings = RunAnalyzers(job, {}, {Source::kTrace});
  const Finding* q = FindId(findings, "trace.queued_idle");
  ASSERT_NE(q, nullptr);
  EXPECT_NE(q->detail.find("100% of it lies inside CUDA-graph replays"), std::string::npos)
      << q->detail;
  EXPECT_EQ(q->fix.rfind("Most of it lies inside CUDA-graph replays", 0), 0u) << q->fix;
}

TEST(QueuedIdle, TheGpusOwnLatencyBetweenQueuedOpsIsNotAFinding) {
  // Kernels queued well ahead, 20 µs apart: 18 gaps of 20 µs a step, 3.6% of it, each under
  // the 50 µs floor.
  Timeline x;
  for (int64_t s = 0; s < 4; ++s) {
    const int64_t b = s * 10 * kMs;
    x.t.steps.push_back(Step{s, b, b + 10 * kMs, b, b + 10 * kMs});
    x.Op(b, b + 10 * kMs - 1, kAdd);
    for (int64_t k = 0; k < 20; ++k)
      x.Kernel(b + k * 500'000 + 20'000, b + (k + 1) * 500'000, b + 10 + k, b + 11 + k);
  }
  Job job = OneRank(x, 4, 10 * kMs);
  EXPECT_EQ(FindId(RunAnalyzers(job, {}, {Source::kTrace}), "trace.queued_idle"), nullptr);
}

// Four steps of ten back-to-back 0.5 ms kernels (one name, one grid), all queued ahead; in each
// step `stretched` of them run `extra` longer, pushing the others later.
Job StretchedSteps(int stretched, int64_t extra, int32_t other_grid = 0, bool comm = false) {
  Timeline x;
  int64_t at = 0;
  for (int64_t s = 0; s < 4; ++s) {
    const int64_t b = at;
    // The rank's own NCCL kernel beside the runs held up.
    if (comm) x.Comm(b, b + stretched * (500'000 + extra), b + 20, b + 21);
    for (int k = 0; k < 10; ++k) {
      int64_t d = 500'000 + (k < stretched ? extra : 0);
      const int32_t grid = k == 9 && other_grid ? other_grid : 1;
      if (grid == other_grid) d = 3 * kMs;  // another grid: another size of work, not a stretch
      x.Kernel(at, at + d, b + k, b + k + 1, 0, kKernel, grid);
      at += d;
    }
    x.t.steps.push_back(Step{s, b, at, b, at});
    x.Op(b, at - 1, kAdd);
  }
  return OneRank(x, 1, at);
}

TEST(SharedGpu, KernelsHeldUpBySlicesAreFoundWithTheirExtraAsSaving) {
  Job job = StretchedSteps(2, 2500'000);
  const auto findings = RunAnalyzers(job, {}, {Source::kTrace});
  const Finding* g = FindId(findings, "trace.shared_gpu");
  ASSERT_NE(g, nullptr);
  EXPECT_NEAR(g->saving_ns_per_step.value_or(0), 5.0 * kMs, 1);  // 2 x 2.5 ms per step
  EXPECT_NEAR(g->step_ns.value_or(0), 10.0 * kMs, 1);
  EXPECT_EQ(g->severity, Severity::kError);  // half the step
  EXPECT_NE(g->detail.find("typically 2.50 ms longer"), std::string::npos) << g->detail;
}

TEST(SharedGpu, ALongerSliceRaisesTheSaving) {
  Job a = StretchedSteps(2, 2500'000), b = StretchedSteps(2, 5 * kMs);
  const auto fa_all = RunAnalyzers(a, {}, {Source::kTrace});
  const auto fb_all = RunAnalyzers(b, {}, {Source::kTrace});
  const Finding* fa = FindId(fa_all, "trace.shared_gpu");
  const Finding* fb = FindId(fb_all, "trace.shared_gpu");
  ASSERT_NE(fa, nullptr);
  ASSERT_NE(fb, nullptr);
  EXPECT_GT(fb->saving_ns_per_step.value_or(0), fa->saving_ns_per_step.value_or(0));
}

TEST(SharedGpu, SmallJitterAndAnotherGridAreNotStretches) {
  // 0.15 ms more (under twice the median and under the 0.2 ms floor), and one kernel of another
  // grid six times longer.
  Job job = StretchedSteps(3, 150'000, 2);
  EXPECT_EQ(FindId(RunAnalyzers(job, {}, {Source::kTrace}), "trace.shared_gpu"), nullptr);
}

TEST(SharedGpu, RunsBesideTheRanksOwnCommunicationAreNotCounted) {
  Job job = StretchedSteps(2, 2500'000, 0, /*comm=*/true);
  EXPECT_EQ(FindId(RunAnalyzers(job, {}, {Source::kTrace}), "trace.shared_gpu"), nullptr);
}

}  // namespace
}  // namespace commdx::analysis
