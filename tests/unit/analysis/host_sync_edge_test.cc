// Where a blocking call sits in the step decides whether a cheap one is reported
// (trace_host_sync.cc, AtStepEdge): syncs before the step's first kernel launch (the batch's
// pageable `.to(device)` copies) or after its last drain the queue once per step; syncs between
// the step's kernel launches (`.item()` in forward) cut the CPU's lead each time they run. On
// hand-made launch-bound steps, with the root cause that follows. Times are µs on one clock.
#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/registry.h"
#include "analysis/trace_facts.h"
#include "analysis/trace_host_sync.h"
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
      t.runtime.push_back(RuntimeCall{launch, launch + 5 * kUs, 2, 0,
                                      static_cast<int32_t>(t.gpu_ops.size()), kHostFlagLaunch});
      t.gpu_ops.push_back(op);
    }
    for (int64_t at : sync_at)
      t.runtime.push_back(
          RuntimeCall{base + at * kUs, base + (at + 5) * kUs, 3, 0, -1, kHostFlagSync});
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
  EXPECT_EQ(sync->saving_ns_per_step.value_or(-1), 0);  // the GPU had drained: cheap here
  ASSERT_NE(FindId(findings, "trace.launch_bound"), nullptr);
  auto rc = diagnose::PickRootCause(findings, {Source::kTrace});
  ASSERT_TRUE(rc);
  EXPECT_EQ(rc->id, "trace.host_sync");  // a cause outranks a symptom of the same severity
}

TEST(HostSyncEdge, AStepTheTraceCutIsLeftOutOfTheCountsAsOfTheCost) {
  // Step 0 holds GPU work launched before the trace began (cut) and a burst of 30 more syncs
  // (a warm-up's autotuning): the cost is over the whole steps 1-3, and so are the counts and
  // each cause's idle (they said 9.5 syncs per step and the burst's idle as the cause's).
  Job job = LaunchBoundSteps({340, 700});
  RankTrace& t = job.trace.ranks[0];
  GpuOp early;
  early.start_ns = 1 * kUs;
  early.end_ns = 60 * kUs;
  early.name = 1;
  early.stream = 7;
  early.launch = -1;
  t.gpu_ops.insert(t.gpu_ops.begin(), early);
  for (RuntimeCall& rc : t.runtime)
    if (rc.gpu_op >= 0) ++rc.gpu_op;
  for (int k = 0; k < 30; ++k)
    t.runtime.push_back(
        RuntimeCall{(350 + 10 * k) * kUs, (355 + 10 * k) * kUs, 3, 0, -1, kHostFlagSync});
  std::stable_sort(
      t.runtime.begin(), t.runtime.end(),
      [](const RuntimeCall& a, const RuntimeCall& b) { return a.start_ns < b.start_ns; });
  for (size_t i = 0; i < t.runtime.size(); ++i)
    if (t.runtime[i].gpu_op >= 0) t.gpu_ops[t.runtime[i].gpu_op].launch = static_cast<int32_t>(i);
  auto findings = RunAnalyzers(job, {}, {Source::kTrace});
  const Finding* sync = FindId(findings, "trace.host_sync");
  ASSERT_NE(sync, nullptr);
  EXPECT_NE(sync->detail.find("2.0 blocking calls per step"), std::string::npos) << sync->detail;
  ASSERT_FALSE(sync->refs.empty());
  EXPECT_NE(sync->refs[0].text.find(": 6 calls, GPU idle 0.00 ms per step"), std::string::npos)
      << sync->refs[0].text;
}

TEST(HostSyncEdge, OneSyncBetweenLaunchesAndOneAtTheEdgeIsOnePerStep) {
  Job job = LaunchBoundSteps({10, 340});
  EXPECT_EQ(FindId(RunAnalyzers(job, {}, {Source::kTrace}), "trace.host_sync"), nullptr);
}

// Each sync's step is the first step whose CPU span holds the call's start, found by a
// sweep over the steps by start (back to back, with a gap, an empty step, overlapping, out of
// order, one over all the others): the same as walking all the steps for each sync.
TEST(HostSyncStep, SweepAgreesWithTheWalk) {
  auto walk = [](const RankTrace& t, int64_t ts) -> int64_t {
    for (const Step& s : t.steps)
      if (ts >= s.cpu_start_ns && ts < s.cpu_end_ns) return s.number;
    return -1;
  };
  // Syncs at each step's start, inside it, just before its end, and at its end.
  Job job = LaunchBoundSteps({0, 50, 995, 1000});
  RankTrace& t = job.trace.ranks[0];
  std::vector<std::vector<Step>> layouts;
  layouts.push_back(t.steps);  // back to back
  std::vector<Step> gaps = t.steps;
  gaps[1].cpu_end_ns -= 300 * kUs;            // a gap after step 1
  gaps[2].cpu_end_ns = gaps[2].cpu_start_ns;  // step 2 empty
  gaps.insert(gaps.begin() + 3, Step{9, gaps[3].cpu_start_ns, gaps[3].cpu_start_ns});
  layouts.push_back(gaps);
  std::vector<Step> overlap = t.steps;
  overlap[1].cpu_end_ns += 400 * kUs;  // runs into step 2
  layouts.push_back(overlap);
  std::vector<Step> reversed(t.steps.rbegin(), t.steps.rend());
  layouts.push_back(reversed);
  std::vector<Step> spanning = gaps;  // a step over all the others, listed last
  spanning.push_back(Step{7, 0, 4 * kStepUs * kUs});
  layouts.push_back(spanning);
  int checked = 0;
  for (const auto& steps : layouts) {
    t.steps = steps;
    TraceFacts f = ComputeTraceFacts(job);
    auto syncs = FindHostSyncs(t, 0, f.timeline(0));
    ASSERT_EQ(syncs.size(), 16u);
    for (const HostSync& s : syncs) {
      EXPECT_EQ(s.step, walk(t, t.runtime[static_cast<size_t>(s.call)].start_ns)) << s.call;
      checked += s.step >= 0;
    }
  }
  EXPECT_GT(checked, 60);  // most syncs fall in a step
}

}  // namespace
}  // namespace commdx::analysis
