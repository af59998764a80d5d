// Trace analyses on the hand-made traces (tests/data/traces/make_traces.py documents the
// timings these numbers come from).
#include <gtest/gtest.h>

#include <string>

#include "analysis/hta_compat.h"
#include "analysis/registry.h"
#include "analysis/trace_arrival_skew.h"
#include "analysis/trace_facts.h"
#include "analysis/trace_host_sync.h"
#include "analysis/trace_timeline.h"
#include "ingest/kineto/kineto_importer.h"
#include "ingest/load_inputs.h"

namespace commdx::analysis {
namespace {

Job Load(const std::vector<std::string>& names) {
  std::vector<std::string> in;
  for (const auto& n : names)
    in.push_back(std::string(COMMDX_SOURCE_DIR) + "/tests/data/traces/" + n);
  auto job = ingest::LoadInputs(in, ingest::ForcedKind(InputKind::kKineto));
  EXPECT_TRUE(job) << (job ? "" : job.error().ToString());
  return job ? std::move(*job) : Job{};
}

const Finding* FindId(const std::vector<Finding>& fs, const std::string& id) {
  for (const auto& f : fs)
    if (f.id == id) return &f;
  return nullptr;
}

TEST(TraceIntervals, MergeLengthOverlapGaps) {
  Intervals a = MergeIntervals({{5, 10}, {0, 3}, {2, 4}, {10, 12}});
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].start, 0);
  EXPECT_EQ(a[0].end, 4);
  EXPECT_EQ(a[1].end, 12);
  EXPECT_EQ(LengthIn(a, 0, 100), 11);
  EXPECT_EQ(LengthIn(a, 3, 6), 2);
  Intervals b = MergeIntervals({{3, 6}, {11, 20}});
  EXPECT_EQ(OverlapIn(a, b, 0, 100), 3);  // [3,4) [5,6) [11,12)
  EXPECT_EQ(OverlapIn(a, b, 5, 11), 1);
  Intervals g = GapsIn(a, 0, 15);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].start, 4);
  EXPECT_EQ(g[1].start, 12);
  EXPECT_EQ(g[1].end, 15);
}

// The parts of a set inside a window, by binary search: what the intersection with the window
// gives, for windows before, across, between, inside and after the intervals, and empty ones.
TEST(TraceIntervals, PartsInAWindowAreItsIntersectionWithTheWindow) {
  const Intervals a = MergeIntervals({{0, 4}, {5, 12}, {20, 30}, {40, 41}});
  for (int64_t lo = -3; lo <= 44; ++lo) {
    for (int64_t hi = lo - 1; hi <= 45; ++hi) {
      const Intervals want = IntersectionOf(a, Intervals{Interval{lo, hi}});
      const Intervals got = PartsIn(a, lo, hi);
      ASSERT_EQ(got.size(), want.size()) << lo << " " << hi;
      for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(got[i].start, want[i].start) << lo << " " << hi;
        EXPECT_EQ(got[i].end, want[i].end) << lo << " " << hi;
      }
    }
  }
  const Intervals inside = PartsIn(a, 3, 22);  // [3,4) [5,12) [20,22)
  ASSERT_EQ(inside.size(), 3u);
  EXPECT_EQ(inside[0].start, 3);
  EXPECT_EQ(inside[2].end, 22);
  EXPECT_TRUE(PartsIn(a, 13, 19).empty());
}

TEST(TraceBreakdown, PartsAddUpAndMatchTheLayout) {
  Job job = Load({"kineto_2024_rank0.json"});
  TraceFacts f = ComputeTraceFacts(job);
  ASSERT_EQ(f.steps.size(), 2u);
  const StepBreakdown& s = f.steps[0];
  EXPECT_EQ(s.total_ns(), 10'000'000);
  EXPECT_EQ(s.compute_ns, 6'500'000);
  EXPECT_EQ(s.comm_overlapped_ns, 500'000);
  EXPECT_EQ(s.comm_exposed_ns, 500'000);
  EXPECT_EQ(s.comm_exposed_wait_ns, 0);
  EXPECT_EQ(s.other_gpu_ns, 0);
  EXPECT_EQ(s.idle_data_ns, 1'000'000);
  EXPECT_EQ(s.idle_host_ns, 1'500'000);
  for (const auto& x : f.steps)
    EXPECT_EQ(x.compute_ns + x.comm_overlapped_ns + x.comm_exposed_ns + x.other_gpu_ns +
                  x.idle_host_ns + x.idle_data_ns,
              x.total_ns());
}

TEST(TraceHtaCompat, AsHtaComputesIt) {
  Job job = Load({"kineto_2024_rank0.json"});
  HtaCompat h = ComputeHtaCompat(job.trace.ranks[0]);
  // Last ProfilerStep dropped: step 1's work, 1.1 ms .. 8.6 ms, no gap.
  EXPECT_EQ(h.kernel_time_ns, 7'500'000);
  EXPECT_NEAR(h.idle_pct, 0.0, 1e-9);
  EXPECT_NEAR(h.compute_pct, 100.0 * 7.0 / 7.5, 1e-9);
  EXPECT_NEAR(h.non_compute_pct, 100.0 * 0.5 / 7.5, 1e-9);
  EXPECT_NEAR(h.comm_comp_overlap_pct, 50.0, 1e-9);
  EXPECT_EQ(HtaClassify("ncclDevKernel_AllReduce_Sum_f32_RING_LL(x)"),
            HtaKernelType::kCommunication);
  EXPECT_EQ(HtaClassify("Memcpy DtoH (Device -> Pinned)"), HtaKernelType::kMemory);
  EXPECT_EQ(HtaClassify("Stream Sync"), HtaKernelType::kOther);
  EXPECT_EQ(HtaClassify("void at::native::vectorized_elementwise_kernel<4>"),
            HtaKernelType::kComputation);
}

TEST(TraceCrossRank, AlignsClocksAndSplitsWaitFromTransfer) {
  Job job = Load({"skew_rank0.json", "skew_rank1.json"});
  ASSERT_EQ(job.trace.ranks.size(), 2u);
  TraceFacts f = ComputeTraceFacts(job);
  // Rank 1's clock reads 1 s later for the same instant.
  EXPECT_EQ(f.cross.offset_ns[1] - f.cross.offset_ns[0], -1'000'000'000);
  ASSERT_EQ(f.cross.matches.size(), 2u);  // one all-reduce per step, matched by Seq
  for (const MatchedCollective& m : f.cross.matches) {
    EXPECT_EQ(job.trace.ranks[m.late].rank, 1);
    EXPECT_EQ(m.max_wait_ns, 5'000'000);
    EXPECT_EQ(m.transfer_ns, 1'000'000);
    EXPECT_EQ(m.bytes, 8388608u * 4);
  }
  auto late = LateRanksPerStep(job.trace, f);
  ASSERT_EQ(late.size(), 2u);
  EXPECT_EQ(late[0].late_rank, 1);
  EXPECT_EQ(late[0].doing_key, "compute");
  // Rank 0 waits 5 ms in its all-reduce; the first 0.5 ms of that runs beside compute.
  EXPECT_EQ(f.rank_means[0].comm_exposed_wait_ns, 4'500'000);
  EXPECT_EQ(f.rank_means[0].comm_exposed_ns, 5'500'000);
  auto findings = RunAnalyzers(job, {}, {Source::kTrace});
  const Finding* skew = FindId(findings, "trace.arrival_skew");
  ASSERT_NE(skew, nullptr);
  EXPECT_EQ(skew->rank, 1);
  // Rank 0 waits 5 ms; 0.5 ms of it runs beside compute and costs nothing.
  EXPECT_EQ(skew->severity, Severity::kError);  // 4.5 ms of a 15 ms step
  EXPECT_NEAR(*skew->saving_ns_per_step, 4.5e6, 1);
  // Waiting is not exposed communication; the pace-setting rank 1 hides half of its 1 ms
  // all-reduce under compute (0.5 ms exposed of a 15 ms step: below the 5% threshold).
  EXPECT_EQ(FindId(findings, "trace.exposed_comm"), nullptr);
  for (const auto& s : f.steps)
    if (s.rank == 1) {
      EXPECT_EQ(s.comm_exposed_ns - s.comm_exposed_wait_ns, 500'000);
    }
  // Transfer-only bandwidth: 32 MiB in 1 ms.
  bool saw = false;
  for (const CollectiveBw& b : f.bandwidth)
    if (b.transfer_only) {
      saw = true;
      EXPECT_NEAR(b.busbw_gbps, 33.554432, 1e-6);  // 2(n-1)/n = 1 for n = 2
    }
  EXPECT_TRUE(saw);
}

TEST(TraceHostSync, ItemSyncFoundWithItsCause) {
  Job job = Load({"skew_rank0.json"});
  TraceFacts f = ComputeTraceFacts(job);
  auto syncs = FindHostSyncs(job.trace.ranks[0], 0, f.timeline(0));
  ASSERT_EQ(syncs.size(), 2u);
  EXPECT_EQ(syncs[0].cause, "aten::_local_scalar_dense (D2H copy + sync)");
  EXPECT_EQ(syncs[0].context, "aten::item");
  EXPECT_EQ(syncs[0].blocked_ns, 5'880'000);
  EXPECT_EQ(syncs[0].step, 1);
  // One cheap sync per step is not reported (GradScaler-like); the list above still has it.
  EXPECT_EQ(FindId(RunAnalyzers(job, {}, {Source::kTrace}), "trace.host_sync"), nullptr);
}

TEST(TraceFindings, PatternAndNothingLoudOnAHealthyStep) {
  Job job = Load({"kineto_2024_rank0.json"});
  auto findings = RunAnalyzers(job, {}, {Source::kTrace});
  const Finding* p = FindId(findings, "trace.pattern");
  ASSERT_NE(p, nullptr);
  EXPECT_NE(p->title.find("all-reduce"), std::string::npos);
  for (const auto& x : findings) EXPECT_NE(x.severity, Severity::kError) << x.id;
  EXPECT_EQ(FindId(findings, "trace.launch_bound"), nullptr);
  EXPECT_EQ(FindId(findings, "trace.small_collectives"), nullptr);
}

}  // namespace
}  // namespace commdx::analysis

namespace commdx::analysis {
namespace {

TEST(TraceFindings, ComputeHeldBehindNcclIsSerialized) {
  Job job = Load({"serialized_rank0.json"});
  auto findings = RunAnalyzers(job, {}, {Source::kTrace});
  const Finding* s = FindId(findings, "trace.comm_serialized");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->severity, Severity::kWarning);
  EXPECT_EQ(s->rank, 0);
  EXPECT_NEAR(*s->saving_ns_per_step, 4e6, 1);  // 2 x 2 ms held back per step
  // Where the all-reduce overlaps the compute next to it, nothing is serialized.
  EXPECT_EQ(FindId(RunAnalyzers(Load({"kineto_2024_rank0.json"}), {}, {Source::kTrace}),
                   "trace.comm_serialized"),
            nullptr);
}

}  // namespace
}  // namespace commdx::analysis
