// The real NCCL Inspector captures (tests/data/inspector/<scenario>/, NCCL 2.28.9, two ranks on one
// H200, workloads/run_nccl_data.sh; README there): every file reads, the straggler run names
// rank 1 late, the healthy runs name nobody, and a summary of each (records, quality notes,
// findings with their numbers) matches tests/golden/inspector/<scenario>.txt.
// Regenerate after a reviewed change: COMMDX_REGEN_GOLDEN=1 ctest -R InspectorCaptures
#include <gtest/gtest.h>

#include <string>

#include "analysis/registry.h"
#include "golden/golden_summary.h"
#include "base/str_format.h"
#include "ingest/load_inputs.h"

namespace commdx {
namespace {

const std::string kData = std::string(COMMDX_SOURCE_DIR) + "/tests/data/inspector/";
const std::string kGolden = std::string(COMMDX_SOURCE_DIR) + "/tests/golden/inspector/";

struct Loaded {
  Job job;
  std::vector<Finding> findings;
};

Loaded Load(const std::string& scenario) {
  Loaded l;
  auto job = ingest::LoadInputs({kData + scenario});
  EXPECT_TRUE(job) << (job ? "" : job.error().ToString());
  if (job) l.job = std::move(*job);
  l.findings = analysis::RunAnalyzers(l.job, {}, {Source::kLogs});
  return l;
}

const Finding* Find(const Loaded& l, const std::string& id) {
  for (const auto& f : l.findings)
    if (f.id == id) return &f;
  return nullptr;
}

double Metric(const Finding& f, const std::string& name) {
  for (const auto& m : f.metrics)
    if (m.name == name) return m.value;
  return -1;
}

std::string Summary(const Loaded& l) {
  std::string s = StrFormat("records %zu\n", l.job.inspector.size());
  for (const auto& d : l.job.quality.entries())
    s += StrFormat("quality %s x%llu\n", d.id.c_str(), static_cast<unsigned long long>(d.count));
  for (const auto& f : l.findings) {
    s += f.id + (f.rank ? StrFormat(" rank %d", *f.rank) : "") + ": " + f.title + "\n";
    for (const auto& m : f.metrics) s += StrFormat("  %s = %.6g\n", m.name.c_str(), m.value);
  }
  return s;
}

TEST(InspectorCaptures, StragglerNamedHealthyNot) {
  Loaded straggler = Load("ddp_straggler");
  ASSERT_EQ(straggler.job.inspector.size(), 152u);
  const Finding* late = Find(straggler, "inspector.late_rank");
  ASSERT_NE(late, nullptr) << Summary(straggler);
  EXPECT_EQ(late->rank, 1);
  // One late all-reduce per step (12 of them) plus some at start-up, of 76 matched (69
  // AllReduce, 4 Broadcast, 3 AllGather: coll_sn counts per function).
  EXPECT_GE(Metric(*late, "late_collectives"), 12);
  EXPECT_EQ(Metric(*late, "collectives_matched"), 76);
  EXPECT_GT(Metric(*late, "worst_wait"), 100e6);  // ~120 ms: the injected delay
  EXPECT_FALSE(late->saving_ns_per_step.has_value());

  Loaded verbose = Load("ddp_straggler_verbose");
  late = Find(verbose, "inspector.late_rank");
  ASSERT_NE(late, nullptr) << Summary(verbose);
  EXPECT_EQ(late->rank, 1);
  // The host saw rank 1's kernel start ~119 ms after rank 0's.
  EXPECT_GT(Metric(*late, "median_kernel_start_skew"), 100e6);

  for (const char* healthy : {"ddp_healthy", "ddp_healthy_verbose"}) {
    Loaded h = Load(healthy);
    EXPECT_EQ(h.job.inspector.size(), 152u) << healthy;
    EXPECT_EQ(Find(h, "inspector.late_rank"), nullptr) << healthy << "\n" << Summary(h);
    const Finding* sum = Find(h, "inspector.comm_summary");
    ASSERT_NE(sum, nullptr) << healthy;
    EXPECT_NE(sum->title.find("2 ranks on 2 node(s), network"), std::string::npos) << sum->title;
  }
}

TEST(InspectorCaptures, MatchGoldenSummaries) {
  for (const char* scenario :
       {"ddp_healthy", "ddp_straggler", "ddp_straggler_verbose", "ddp_healthy_verbose"}) {
    SCOPED_TRACE(scenario);
    test_util::ExpectGoldenSummary(kGolden + scenario + ".txt", Summary(Load(scenario)));
  }
}

}  // namespace
}  // namespace commdx
