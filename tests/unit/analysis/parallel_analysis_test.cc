// The trace facts and the analyzers run on worker threads (analysis_input.h, registry.cc): the
// facts and the findings must be the same on one thread as on many, on a real 4-rank job with
// traces, NCCL logs, a job log and environment dumps (examples/nodes4_ddp_straggler).
#include <gtest/gtest.h>

#include <string>

#include "analysis/analysis_input.h"
#include "analysis/registry.h"
#include "analysis/trace_facts.h"
#include "ingest/load_inputs.h"

namespace commdx::analysis {
namespace {

Job LoadExample(const std::string& name) {
  auto job = ingest::LoadInputs({std::string(COMMDX_SOURCE_DIR) + "/examples/" + name}, {});
  EXPECT_TRUE(job) << (job ? "" : job.error().ToString());
  return job ? std::move(job).value() : Job{};
}

void ExpectSameBreakdown(const StepBreakdown& a, const StepBreakdown& b) {
  EXPECT_EQ(a.trace, b.trace);
  EXPECT_EQ(a.rank, b.rank);
  EXPECT_EQ(a.step, b.step);
  EXPECT_EQ(a.start_ns, b.start_ns);
  EXPECT_EQ(a.end_ns, b.end_ns);
  EXPECT_EQ(a.compute_ns, b.compute_ns);
  EXPECT_EQ(a.comm_exposed_ns, b.comm_exposed_ns);
  EXPECT_EQ(a.comm_exposed_wait_ns, b.comm_exposed_wait_ns);
  EXPECT_EQ(a.idle_host_ns, b.idle_host_ns);
  EXPECT_EQ(a.idle_sync_ns, b.idle_sync_ns);
  EXPECT_EQ(a.partial, b.partial);
}

TEST(ParallelAnalysis, TraceFactsAreTheSameOnAnyThreadCount) {
  const Job job = LoadExample("nodes4_ddp_straggler");
  ASSERT_EQ(job.trace.ranks.size(), 4u);
  const TraceFacts one = ComputeTraceFacts(job, 1);
  ASSERT_FALSE(one.steps.empty());
  for (int threads : {2, 3, 8}) {
    const TraceFacts many = ComputeTraceFacts(job, threads);
    ASSERT_EQ(many.steps.size(), one.steps.size()) << threads;
    for (size_t i = 0; i < one.steps.size(); ++i) ExpectSameBreakdown(one.steps[i], many.steps[i]);
    ASSERT_EQ(many.rank_means.size(), one.rank_means.size());
    for (size_t i = 0; i < one.rank_means.size(); ++i)
      ExpectSameBreakdown(one.rank_means[i], many.rank_means[i]);
    ASSERT_EQ(many.ranks(), one.ranks());
    for (size_t i = 0; i < one.ranks(); ++i)
      EXPECT_EQ(many.timeline(i).busy.size(), one.timeline(i).busy.size());
  }
}

TEST(ParallelAnalysis, FindingsAreTheSameInTheSameOrderOnAnyThreadCount) {
  const Job job = LoadExample("nodes4_ddp_straggler");
  AnalysisInput serial(job, 1);
  const std::vector<Finding> one = RunAnalyzers(serial, {}, {});
  ASSERT_FALSE(one.empty());
  for (int threads : {2, 8}) {
    AnalysisInput parallel(job, threads);
    const std::vector<Finding> many = RunAnalyzers(parallel, {}, {});
    ASSERT_EQ(many.size(), one.size()) << threads;
    for (size_t i = 0; i < one.size(); ++i) {
      EXPECT_EQ(many[i].id, one[i].id) << i;
      EXPECT_EQ(many[i].title, one[i].title) << i;
      EXPECT_EQ(many[i].detail, one[i].detail) << i;
      EXPECT_EQ(many[i].saving_ns_per_step, one[i].saving_ns_per_step) << i;
      EXPECT_EQ(many[i].rank, one[i].rank) << i;
    }
  }
}

}  // namespace
}  // namespace commdx::analysis
