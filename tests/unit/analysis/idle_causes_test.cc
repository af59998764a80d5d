// GPU idle charged to allocator calls, CUDA-graph capture and host time outside any profiled op
// (src/analysis/idle_attribution.h), and the findings they raise (trace.allocator_churn,
// trace.host_gap), on small hand-made timelines: one rule per test. Times are ns on one clock.
#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/idle_attribution.h"
#include "analysis/registry.h"
#include "analysis/trace_facts.h"
#include "analysis/trace_step_breakdown.h"
#include "ingest/trace_build/names.h"
#include "unit/analysis/hand_timeline.h"

namespace commdx::analysis {
namespace {

using namespace hand;  // NOLINT: the hand-made timeline's names

void ExpectPartsAddUp(const StepBreakdown& s) {
  EXPECT_EQ(s.compute_ns + s.comm_overlapped_ns + s.comm_exposed_ns + s.other_gpu_ns +
                s.idle_host_ns + s.idle_data_ns,
            s.total_ns());
  EXPECT_GE(s.idle_launch_ns(), 0);
  EXPECT_EQ(s.idle_sync_ns + s.idle_queued_ns + s.idle_alloc_ns + s.idle_capture_ns +
                s.idle_host_gap_ns + s.idle_launch_ns(),
            s.idle_host_ns);
}

TEST(IdleCauses, CudaFreeWhileTheGpuDrainsIsAllocatorIdle) {
  Timeline x;
  x.Kernel(0, 100, 0, 2);
  x.Call(90, 400, kFree);  // waits for the device, then frees
  x.Kernel(450, 500, 420, 430);
  StepBreakdown s = x.Measure(0, 500);
  EXPECT_EQ(s.idle_alloc_ns, 300);
  EXPECT_EQ(s.idle_sync_ns, 0);
  EXPECT_EQ(s.idle_launch_ns(), 50);
  ExpectPartsAddUp(s);
}

TEST(IdleCauses, AllocatorCallOfAThreadTheGpuDidNotWaitOnIsNotCharged) {
  Timeline x;
  x.Kernel(0, 100, 0, 2);
  x.Call(120, 400, kMalloc, 1);  // pinned-memory thread, say
  x.Kernel(450, 500, 420, 430);
  StepBreakdown s = x.Measure(0, 500);
  EXPECT_EQ(s.idle_alloc_ns, 0);
  EXPECT_EQ(s.idle_launch_ns(), 350);
}

TEST(IdleCauses, AllocatorAndSyncInOneGapAreChargedOnce) {
  Timeline x;
  x.Kernel(0, 100, 0, 2);
  x.Call(10, 102, kSyncCall);  // blocks 92 while the GPU drains at 100
  x.Call(150, 300, kMalloc);
  x.Kernel(450, 500, 420, 430);
  StepBreakdown s = x.Measure(0, 500);
  EXPECT_EQ(s.idle_alloc_ns, 150);
  EXPECT_EQ(s.idle_sync_ns, 92);  // [100,150) and [300,342): what the allocator left
  EXPECT_EQ(s.idle_launch_ns(), 350 - 150 - 92);
  ExpectPartsAddUp(s);
}

TEST(IdleCauses, GraphCaptureIsNotLaunchBound) {
  Timeline x;
  x.Kernel(0, 50, 0, 2);
  x.Call(100, 101, kBegin);
  x.Call(120, 125, kLaunch);  // captured: recorded, never run
  x.Call(300, 305, kEnd);
  x.Call(305, 400, kInstantiate);
  x.Kernel(420, 500, 410, 415);
  StepBreakdown s = x.Measure(0, 500);
  EXPECT_EQ(s.idle_capture_ns, 300);
  EXPECT_EQ(s.idle_launch_ns(), 50 + 20);
  ExpectPartsAddUp(s);
}

TEST(IdleCauses, CaptureStillOpenAtTheEndRunsToTheEnd) {
  Timeline x;
  x.Kernel(0, 50, 0, 2);
  x.Call(100, 101, kBegin);
  StepBreakdown s = x.Measure(0, 500);
  EXPECT_EQ(s.idle_capture_ns, 400);
  EXPECT_EQ(s.idle_launch_ns(), 50);
}

// aten::mm launches a kernel and ends at 60; nothing is profiled until aten::add at 2 ms.
Timeline HostGapLoop(int64_t add_at) {
  Timeline x;
  x.Op(0, 60, kMm);
  x.Kernel(10, 50, 5, 8);
  x.Op(add_at, add_at + 100, kAdd);
  x.Kernel(add_at + 20, add_at + 50, add_at + 10, add_at + 15);
  return x;
}

TEST(IdleCauses, HostTimeOutsideEveryOpIsAHostGapBetweenItsOps) {
  Timeline x = HostGapLoop(2 * kMs);
  StepBreakdown s = x.Measure(0, 2 * kMs + 100);
  EXPECT_EQ(s.idle_host_gap_ns, 2 * kMs - 60);
  // Launch idle: before the first kernel and after the last one, and the ends of the gap that
  // lie inside aten::mm [50, 60) and aten::add [2 ms, 2 ms + 20).
  EXPECT_EQ(x.LaunchIn(kMm), 10 + 10);
  EXPECT_EQ(x.LaunchIn(kAdd), 20 + 50);
  EXPECT_EQ(s.idle_launch_ns(), 90);
  ASSERT_EQ(x.tl.idle.host_gaps.size(), 1u);
  EXPECT_EQ(x.tl.idle.host_gaps[0].before, kMm);
  EXPECT_EQ(x.tl.idle.host_gaps[0].after, kAdd);
  EXPECT_EQ(x.tl.idle.host_gaps[0].idle_ns, 2 * kMs - 60);
  ExpectPartsAddUp(s);
}

TEST(IdleCauses, ShortPythonBetweenOpsStaysLaunchBound) {
  Timeline x = HostGapLoop(kMs / 2);  // 0.5 ms between the ops: under kMinHostGapNs
  StepBreakdown s = x.Measure(0, kMs / 2 + 100);
  EXPECT_EQ(s.idle_host_gap_ns, 0);
  EXPECT_EQ(x.LaunchIn(Name(0)), kMs / 2 - 60);  // charged as "between ops"
  EXPECT_TRUE(x.tl.idle.host_gaps.empty());
}

TEST(IdleCauses, TheStepMarkIsNoOpTheHostIsBusyIn) {
  Timeline x = HostGapLoop(2 * kMs);
  x.Op(0, 2 * kMs + 100, kStepMark);
  EXPECT_EQ(x.Measure(0, 2 * kMs + 100).idle_host_gap_ns, 2 * kMs - 60);
}

TEST(IdleCauses, AnotherLaunchingThreadInsideAnOpIsNoHostGap) {
  Timeline x = HostGapLoop(2 * kMs);
  x.Op(100, 1900 * 1000, kMm, 1);  // the autograd thread runs an op meanwhile ...
  x.Kernel(2 * kMs + 60, 2 * kMs + 70, 1800 * 1000, 1800 * 1000 + 5, 1);  // ... and launches
  StepBreakdown s = x.Measure(0, 2 * kMs + 100);
  EXPECT_EQ(s.idle_host_gap_ns, 0);
}

TEST(IdleCauses, WithoutProfiledOpsNothingIsAHostGap) {
  Timeline x;  // an Nsight Systems capture with CUDA calls only
  x.Kernel(0, 50, 0, 2);
  x.Kernel(3 * kMs, 3 * kMs + 50, 3 * kMs - 10, 3 * kMs - 5);
  StepBreakdown s = x.Measure(0, 3 * kMs + 50);
  EXPECT_EQ(s.idle_host_gap_ns, 0);
  EXPECT_EQ(s.idle_launch_ns(), 3 * kMs - 50);
}

TEST(IdleCauses, RuntimeCallNamesGetTheirFlags) {
  using ingest::trace_build::RuntimeFlags;
  for (const char* n : {"cudaMalloc", "cudaFree", "cudaMallocHost", "cudaFreeHost", "cudaHostAlloc",
                        "cuMemAlloc_v2", "cuMemFree_v2", "cuMemCreate", "cuMemMap", "hipMalloc",
                        "hipFree", "hipHostMalloc", "hipHostFree"})
    EXPECT_TRUE(RuntimeFlags(n) & kHostFlagAlloc) << n;
  for (const char* n : {"cudaMallocAsync", "cudaFreeAsync", "cudaMemcpyAsync", "cudaLaunchKernel",
                        "cudaMallocFromPoolAsync", "hipMallocAsync", "cudaMalloc3DArrayX"})
    EXPECT_FALSE(RuntimeFlags(n) & kHostFlagAlloc) << n;
  for (const char* n : {"cudaMemcpy", "cudaMemcpyToSymbol", "cuMemcpyHtoD_v2", "cuMemcpyDtoH_v2",
                        "hipMemcpyWithStream", "hipMemcpyDtoH", "cudaStreamSynchronize"})
    EXPECT_TRUE(RuntimeFlags(n) & kHostFlagSync) << n;
  for (const char* n : {"cudaMemcpyAsync", "hipMemcpyAsync", "cuMemcpyHtoDAsync_v2", "cudaFree"})
    EXPECT_FALSE(RuntimeFlags(n) & kHostFlagSync) << n;
  for (const char* n :
       {"cudaStreamBeginCapture", "cudaStreamEndCapture", "cudaStreamBeginCapture_v10000",
        "hipStreamBeginCapture", "cuStreamEndCapture"})
    EXPECT_TRUE(RuntimeFlags(n) & kHostFlagCapture) << n;
  for (const char* n : {"cudaStreamIsCapturing", "cudaStreamGetCaptureInfo_v2",
                        "cudaThreadExchangeStreamCaptureMode", "cudaGraphLaunch"})
    EXPECT_FALSE(RuntimeFlags(n) & kHostFlagCapture) << n;
}

// Four 10 ms steps; in each, a kernel runs [0, 2 ms), then the loop frees and allocates
// (`alloc_in_step` says in which steps), then launches a kernel that runs [6.5, 9 ms). CPU ops
// cover the launches, so nothing is a host gap.
Job AllocLoop(const std::vector<bool>& alloc_in_step) {
  Timeline x;
  x.t.file = "hand-made";
  x.t.rank = 0;
  x.t.step_source = StepSource::kProfilerStep;
  for (int64_t s = 0; s < 4; ++s) {
    const int64_t b = s * 10 * kMs;
    x.t.steps.push_back(Step{s, b, b + 10 * kMs, b, b + 10 * kMs});
    x.Op(b, b + 10 * kMs - 1, kAdd);
    x.Kernel(b + 100, b + 2 * kMs, b + 10, b + 20);
    if (alloc_in_step[static_cast<size_t>(s)]) {
      x.Call(b + 1900 * 1000, b + 5 * kMs, kFree);
      x.Call(b + 5 * kMs, b + 6 * kMs, kMalloc);
    }
    x.Kernel(b + 6500 * 1000, b + 9 * kMs, b + 6100 * 1000, b + 6200 * 1000);
  }
  x.Finish(0, 40 * kMs);
  Job job;
  job.trace.ranks.push_back(std::move(x.t));
  return job;
}

TEST(AllocatorChurn, EveryStepFoundWithTheIdleDuringTheCallsAsSaving) {
  Job job = AllocLoop({true, true, true, true});
  auto findings = RunAnalyzers(job, {}, {Source::kTrace});
  const Finding* churn = FindId(findings, "trace.allocator_churn");
  ASSERT_NE(churn, nullptr);
  // Per step: idle [2, 6.5) ms; the allocator holds [2, 6) of it.
  EXPECT_NEAR(churn->saving_ns_per_step.value_or(0), 4.0 * kMs, 1);
  EXPECT_NEAR(churn->step_ns.value_or(0), 10.0 * kMs, 1);
  EXPECT_NE(churn->detail.find("2.0 calls per step (1 cudaFree, 1 cudaMalloc)"), std::string::npos)
      << churn->detail;
  // What is left for launch-bound is the 0.5 ms after the calls and the 1 ms at the step's end.
  if (const Finding* lb = FindId(findings, "trace.launch_bound")) {
    EXPECT_LE(lb->saving_ns_per_step.value_or(0), 1.5 * kMs + 1);
  }
  EXPECT_EQ(FindId(findings, "trace.host_gap"), nullptr);
}

TEST(AllocatorChurn, CallsInOneStepOnlyFillTheCacheOnce) {
  Job job = AllocLoop({true, false, false, false});
  EXPECT_EQ(FindId(RunAnalyzers(job, {}, {Source::kTrace}), "trace.allocator_churn"), nullptr);
}

// Four 10 ms steps: aten::mm launches a 1 ms kernel, 6 ms of unprofiled host work, aten::add
// launches a kernel that runs to the step's end.
Job HostGapSteps() {
  Timeline x;
  x.t.file = "hand-made";
  x.t.rank = 0;
  x.t.step_source = StepSource::kProfilerStep;
  for (int64_t s = 0; s < 4; ++s) {
    const int64_t b = s * 10 * kMs;
    x.t.steps.push_back(Step{s, b, b + 10 * kMs, b, b + 10 * kMs});
    x.Op(b, b + kMs, kMm);
    x.Kernel(b + 100, b + kMs + 100, b + 10, b + 20);
    x.Op(b + 7 * kMs, b + 8 * kMs, kAdd);
    x.Kernel(b + 7 * kMs + 100, b + 10 * kMs, b + 7 * kMs + 10, b + 7 * kMs + 20);
  }
  x.Finish(0, 40 * kMs);
  Job job;
  job.trace.ranks.push_back(std::move(x.t));
  return job;
}

TEST(HostGap, FoundBetweenTheOpsAroundIt) {
  Job job = HostGapSteps();
  auto findings = RunAnalyzers(job, {}, {Source::kTrace});
  const Finding* gap = FindId(findings, "trace.host_gap");
  ASSERT_NE(gap, nullptr);
  EXPECT_NEAR(gap->saving_ns_per_step.value_or(0), 6.0 * kMs, 1000);  // [1 ms + 100, 7 ms)
  EXPECT_LE(gap->saving_ns_per_step.value_or(0), gap->step_ns.value_or(0));
  EXPECT_NE(gap->title.find("between 'aten::mm' and 'aten::add'"), std::string::npos) << gap->title;
  // Launch-bound keeps what lies inside the ops: none of the 6 ms.
  if (const Finding* lb = FindId(findings, "trace.launch_bound")) {
    EXPECT_LT(lb->saving_ns_per_step.value_or(0), 1.0 * kMs);
  }
  EXPECT_EQ(FindId(findings, "trace.allocator_churn"), nullptr);
}

}  // namespace
}  // namespace commdx::analysis
