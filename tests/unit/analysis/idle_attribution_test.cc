// The one attribution of GPU idle (src/analysis/idle_attribution.h) on small hand-made
// timelines: one rule per test. Times are ns on one rank's clock.
#include "analysis/idle_attribution.h"

#include <gtest/gtest.h>

#include "analysis/registry.h"
#include "analysis/trace_facts.h"
#include "analysis/trace_step_breakdown.h"
#include "ingest/trace_build/names.h"

namespace commdx::analysis {
namespace {

// A rank with two host threads: 0 the training loop, 1 another thread.
struct Timeline {
  RankTrace t;
  Timeline() {
    t.names = {"", "kernel", "cudaLaunchKernel", "cudaStreamSynchronize", "dataloader"};
    t.threads = {{"1", "main", 0}, {"2", "other", 0}};
    t.main_thread = 0;
    t.has_gpu = true;
  }
  // A kernel on `stream` running [start, end), launched by a call [ls, le] on `thread`.
  void Kernel(int64_t start, int64_t end, int64_t ls, int64_t le, uint32_t thread = 0,
              int32_t stream = 7) {
    RuntimeCall rc{ls, le, 2, thread, static_cast<int32_t>(t.gpu_ops.size()), kHostFlagLaunch};
    GpuOp op;
    op.start_ns = start;
    op.end_ns = end;
    op.stream = stream;
    op.launch = static_cast<int32_t>(t.runtime.size());
    t.runtime.push_back(rc);
    t.gpu_ops.push_back(op);
  }
  void Sync(int64_t s0, int64_t s1, uint32_t thread = 0) {
    t.runtime.push_back(RuntimeCall{s0, s1, 3, thread, -1, kHostFlagSync});
  }
  void Data(int64_t s, int64_t e, uint32_t thread = 0) {
    t.host_ops.push_back(HostOp{s, e, 4, thread, HostOpKind::kUserAnnotation, kHostFlagDataLoader});
  }
  // Sorts as the importer leaves it and measures [lo, hi) as one step.
  StepBreakdown Measure(int64_t lo, int64_t hi) {
    auto by_start = [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; };
    std::stable_sort(t.runtime.begin(), t.runtime.end(), by_start);
    for (size_t i = 0; i < t.runtime.size(); ++i)
      if (t.runtime[i].gpu_op >= 0) t.gpu_ops[t.runtime[i].gpu_op].launch = static_cast<int32_t>(i);
    std::sort(t.host_ops.begin(), t.host_ops.end(), by_start);
    t.first_ns = lo;
    t.last_ns = hi;
    t.steps = {Step{0, lo, hi, lo, hi}};
    tl = BuildTimeline(t);
    return MeasureWindow(tl, {}, lo, hi);
  }
  RankTimeline tl;
};

void ExpectPartsAddUp(const StepBreakdown& s) {
  const int64_t idle = s.idle_host_ns + s.idle_data_ns;
  EXPECT_EQ(s.compute_ns + s.comm_overlapped_ns + s.comm_exposed_ns + s.other_gpu_ns + idle,
            s.total_ns());
  EXPECT_GE(s.idle_launch_ns(), 0);
  EXPECT_LE(s.idle_sync_ns + s.idle_queued_ns, s.idle_host_ns);
}

TEST(IdleAttribution, SyncAfterTheGpuDrainedCostsNothing) {
  Timeline x;
  x.Kernel(0, 100, 0, 2);
  x.Sync(200, 202);  // the GPU has been idle since 100
  x.Kernel(400, 500, 390, 395);
  StepBreakdown s = x.Measure(0, 500);
  EXPECT_EQ(s.idle_sync_ns, 0);
  EXPECT_EQ(s.idle_launch_ns(), 300);
  EXPECT_TRUE(x.tl.idle.sync_charges.empty());
  ExpectPartsAddUp(s);
}

TEST(IdleAttribution, SyncIsChargedAtMostTheTimeItBlocked) {
  Timeline x;
  x.Kernel(0, 100, 0, 2);
  x.Sync(10, 102);               // blocks 92 while the GPU drains at 100
  x.Kernel(300, 400, 290, 295);  // the CPU then takes 200 to launch again
  StepBreakdown s = x.Measure(0, 400);
  EXPECT_EQ(s.idle_sync_ns, 92);
  EXPECT_EQ(s.idle_launch_ns(), 200 - 92);
  ASSERT_EQ(x.tl.idle.sync_charges.size(), 1u);
  EXPECT_EQ(x.tl.idle.sync_charges[0].second, 92);
  ExpectPartsAddUp(s);
  // A short gap after it: the sync gets the gap, not its whole blocked time.
  Timeline y;
  y.Kernel(0, 100, 0, 2);
  y.Sync(10, 102);
  y.Kernel(115, 200, 105, 110);
  EXPECT_EQ(y.Measure(0, 200).idle_sync_ns, 15);
}

TEST(IdleAttribution, BackToBackSyncsChargeTheGapOnce) {
  Timeline x;
  x.Kernel(0, 100, 0, 2);
  x.Sync(10, 102);
  x.Sync(103, 104);  // loss.item() right after torch.cuda.synchronize()
  x.Sync(105, 106, 1);
  x.Kernel(1000, 1100, 990, 995);
  StepBreakdown s = x.Measure(0, 1100);
  EXPECT_EQ(s.idle_sync_ns, 92);
  EXPECT_EQ(s.idle_sync_ns + s.idle_launch_ns() + s.idle_data_ns, 900);
  EXPECT_EQ(x.tl.idle.sync_charges.size(), 1u);
  ExpectPartsAddUp(s);
}

TEST(IdleAttribution, DataLoadingAfterASyncGoesToData) {
  Timeline x;
  x.Kernel(0, 100, 0, 2);
  x.Sync(10, 102);
  x.Data(110, 900);  // the loop thread loads the next batch
  x.Kernel(1000, 1100, 905, 990);
  StepBreakdown s = x.Measure(0, 1100);
  EXPECT_EQ(s.idle_data_ns, 790);
  EXPECT_EQ(s.idle_sync_ns, 92);  // of the 110 left, at most what it blocked
  EXPECT_EQ(s.idle_launch_ns(), 900 - 790 - 92);
  ExpectPartsAddUp(s);
}

TEST(IdleAttribution, DataRegionOfAThreadTheGpuDidNotWaitOnIsNotData) {
  Timeline x;
  x.Kernel(0, 100, 0, 2);
  x.Data(150, 250, 1);  // a background thread loads while the loop launches late
  x.Kernel(300, 400, 280, 290);
  StepBreakdown s = x.Measure(0, 400);
  EXPECT_EQ(s.idle_data_ns, 0);
  EXPECT_EQ(s.idle_launch_ns(), 200);
}

TEST(IdleAttribution, KernelLaunchedBeforeTheGapIsNotLaunchBound) {
  Timeline x;
  x.Kernel(0, 100, 0, 2);
  x.Kernel(300, 400, 5, 8, 0, 9);  // on another stream, waiting on an event: queued since 8
  x.Data(120, 200);                // data loading meanwhile does not starve the GPU either
  StepBreakdown s = x.Measure(0, 400);
  EXPECT_EQ(s.idle_queued_ns, 200);
  EXPECT_EQ(s.idle_launch_ns(), 0);
  EXPECT_EQ(s.idle_data_ns, 0);
  ExpectPartsAddUp(s);
}

// The op that ends a gap is the first one after it that is not a GPU-side sync (an event wait
// on the stream is no work of its own): here a kernel queued before the gap, and in the next
// gap one launched late.
TEST(IdleAttribution, AGpuSideSyncDoesNotEndTheGap) {
  Timeline x;
  x.Kernel(0, 100, 0, 2);
  GpuOp wait;
  wait.start_ns = 300;
  wait.end_ns = 300;
  wait.kind = GpuOpKind::kSync;
  x.t.gpu_ops.push_back(wait);
  x.Kernel(300, 400, 5, 8, 0, 9);  // queued since 8
  x.Kernel(500, 600, 440, 460);    // launched in the gap [400, 500)
  StepBreakdown s = x.Measure(0, 600);
  EXPECT_EQ(s.idle_queued_ns, 200);
  EXPECT_EQ(s.idle_launch_ns(), 100);
  ExpectPartsAddUp(s);
}

TEST(IdleAttribution, PartsAddUpOverStepsThatCutAGap) {
  Timeline x;
  x.Kernel(0, 100, 0, 2);
  x.Sync(10, 102);
  x.Data(150, 600);
  x.Kernel(700, 800, 650, 660);
  x.Measure(0, 800);
  for (auto [lo, hi] : {std::pair<int64_t, int64_t>{0, 120}, {120, 400}, {400, 800}}) {
    StepBreakdown s = MeasureWindow(x.tl, {}, lo, hi);
    ExpectPartsAddUp(s);
    EXPECT_LE(s.idle_sync_ns + s.idle_data_ns, s.total_ns());
  }
  EXPECT_EQ(MeasureWindow(x.tl, {}, 0, 120).idle_sync_ns, 20);
  EXPECT_EQ(MeasureWindow(x.tl, {}, 120, 400).idle_sync_ns, 30);
}

TEST(DataLoaderNames, WhatPyTorchTorchRecAndUsersEmit) {
  using ingest::trace_build::IsDataLoaderName;
  for (const char* n :
       {"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
        "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", "## load_batch ##",
        "## wait_for_batch ##", "## next_batch ##", "data", "Data", "load_batch", "get_batch",
        "next_batch", "dataloader", "data_load", "data loading", "load_data", "DaTa-LoAd",
        "ddata_load", "datadataloader", "x::Data Loading", "MyDataLoaderWrapper.next"})
    EXPECT_TRUE(IsDataLoaderName(n)) << n;
  for (const char* n : {"aten::data_ptr", "metadata", "DistributedDataParallel.forward",
                        "ProfilerStep#3", "## forward ##", "batch_norm", "update_data_stats",
                        "data loader", "data_lo", "dat", "", "data_", "DistributedData_Loa"})
    EXPECT_FALSE(IsDataLoaderName(n)) << n;
}

}  // namespace
}  // namespace commdx::analysis
