// Where a blocking call sits in the step decides whether a cheap one is reported
// (trace_host_sync.cc, AtStepEdge): syncs before the step's first kernel launch (the batch's
// pageable `.to(device)` copies) or after its last drain the queue once per step; syncs between
// the step's kernel launches (`.item()` in forward) cut the CPU's lead each time they run. On
// hand-made launch-bound steps, with the root cause that follows. Times are µs on one clock.
#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/registry.h"
#include "diagnose/diagnosis.h"

namespace commdx::analysis {
namespace {

constexpr int64_t kUs = 1000;
constexpr int64_t kStepUs = 1000;

// One rank, four 1 ms steps, each launching five 50 µs kernels 180 µs apart: the GPU idles
// 750 µs of every step waiting for launches (launch-bound). Two syncs per step, placed by
// `sync_at` (µs into the step); none of them finds GPU work to wait for.
Job LaunchBoundSteps(std::vector<int64_t> sync_at) {
  Job job;
  RankTrace t;
  t.file = "hand-made";
  t.rank = 0;
  t.names = {"", "kernel", "cudaLaunchKernel", "cudaStreamSynchronize"};
  t.threads = {{"1", "main", 0}};
  t.main_thread = 0;
  t.has_gpu = true;
  t.step_source = StepSource::kProfilerStep;
  for (int64_t s = 0; s < 4; ++s) {
    const int64_t base = s * kStepUs * kUs;
    t.steps.push_back(Step{s, base, base + kStepUs * kUs, base, base + kStepUs * kUs});
    for (int64_t k = 0; k < 5; ++k) {
      const int64_t launch = base + (100 + 180 * k) * kUs;
      GpuOp op;
      op.start_ns = launch + 7 * kUs;
      op.end_ns = op.start_ns + 50 * kUs;
      op.name = 1;
      op.stream = 7;
      op.launch = static_cast<int32_t>(t.runtime.size());
      t.runtime.push_back(RuntimeCall{launch, launch + 5 * kUs, -1, -1, 2, 0,
                                      static_cast<int32_t>(t.gpu_ops.size()), kHostFlagLaunch});
      t.gpu_ops.push_back(op);
    }
    for (int64_t at : sync_at)
      t.runtime.push_back(
          RuntimeCall{base + at * kUs, base + (at + 5) * kUs, -1, -1, 3, 0, -1, kHostFlagSync});
  }
  std::stable_sort(
      t.runtime.begin(), t.runtime.end(),
      [](const RuntimeCall& a, const RuntimeCall& b) { return a.start_ns < b.start_ns; });
  for (size_t i = 0; i < t.runtime.size(); ++i)
    if (t.runtime[i].gpu_op >= 0) t.gpu_ops[t.runtime[i].gpu_op].launch = static_cast<int32_t>(i);
  t.first_ns = 0;
  t.last_ns = 4 * kStepUs * kUs;
  job.trace.ranks.push_back(std::move(t));
  return job;
}

const Finding* FindId(const std::vector<Finding>& fs, const std::string& id) {
  for (const auto& f : fs)
    if (f.id == id) return &f;
  return nullptr;
}

TEST(HostSyncEdge, SyncsBeforeTheFirstLaunchAreNotReportedWhenCheap) {
  // Two back-to-back copies + syncs at the start of every step, before any kernel.
  Job job = LaunchBoundSteps({10, 40});
  auto findings = RunAnalyzers(job, {}, {Source::kTrace});
  EXPECT_EQ(FindId(findings, "trace.host_sync"), nullptr);
  ASSERT_NE(FindId(findings, "trace.launch_bound"), nullptr);
  auto rc = diagnose::PickRootCause(findings, {Source::kTrace});
  ASSERT_TRUE(rc);
  EXPECT_EQ(rc->id, "trace.launch_bound");  // no cheap step-edge sync in front of it
}

TEST(HostSyncEdge, SyncsAfterTheLastLaunchAreNotReportedWhenCheap) {
  Job job = LaunchBoundSteps({900, 950});  // loss.item() and the like, after the last kernel
  EXPECT_EQ(FindId(RunAnalyzers(job, {}, {Source::kTrace}), "trace.host_sync"), nullptr);
}

TEST(HostSyncEdge, SyncsBetweenLaunchesAreReportedEvenWhenCheap) {
  // .item() in forward: between the step's kernel launches, twice per step.
  Job job = LaunchBoundSteps({340, 700});
  auto findings = RunAnalyzers(job, {}, {Source::kTrace});
  const Finding* sync = FindId(findings, "trace.host_sync");
  ASSERT_NE(sync, nullptr);
  EXPECT_EQ(sync->cost_ns_per_step.value_or(-1), 0);  // the GPU had drained: cheap here
  ASSERT_NE(FindId(findings, "trace.launch_bound"), nullptr);
  auto rc = diagnose::PickRootCause(findings, {Source::kTrace});
  ASSERT_TRUE(rc);
  EXPECT_EQ(rc->id, "trace.host_sync");  // a cause outranks a symptom of the same severity
}

TEST(HostSyncEdge, OneSyncBetweenLaunchesAndOneAtTheEdgeIsOnePerStep) {
  Job job = LaunchBoundSteps({10, 340});
  EXPECT_EQ(FindId(RunAnalyzers(job, {}, {Source::kTrace}), "trace.host_sync"), nullptr);
}

}  // namespace
}  // namespace commdx::analysis
