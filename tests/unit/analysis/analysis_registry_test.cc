// The one analyzer list and the catalogue's facts: every analyzer is listed once, the trace
// analyzers among them; the run stamps each finding with its catalogue source; a command that
// asks Diagnose for one source gets only that source's findings.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "analysis/catalogue.h"
#include "analysis/registry.h"
#include "diagnose/diagnosis.h"
#include "ingest/load_inputs.h"

namespace commdx {
namespace {

Job LoadSkew() {
  std::vector<std::string> in;
  for (const char* n : {"skew_rank0.json", "skew_rank1.json"})
    in.push_back(std::string(COMMDX_SOURCE_DIR) + "/tests/data/traces/" + n);
  auto job = ingest::LoadInputs(in, ingest::ForcedKind(InputKind::kKineto));
  EXPECT_TRUE(job) << (job ? "" : job.error().ToString());
  return job ? std::move(*job) : Job{};
}

TEST(AnalyzerRegistry, EveryAnalyzerOnceWithASource) {
  std::set<std::string> names;
  int trace = 0;
  for (const auto& a : analysis::Analyzers()) {
    EXPECT_TRUE(names.insert(a.name).second) << a.name;
    EXPECT_NE(a.source, Source::kNone) << a.name;
    EXPECT_NE(std::string(a.description), "") << a.name;
    trace += a.source == Source::kTrace;
  }
  EXPECT_EQ(trace, 14);  // the trace analyzers are listed like the others
  for (const auto& e : analysis::Catalogue()) EXPECT_NE(e.source, Source::kNone) << e.id;
}

TEST(AnalyzerRegistry, RunStampsTheCatalogueSourceAndTitle) {
  Job job = LoadSkew();
  auto findings = analysis::RunAnalyzers(job, {}, {});
  ASSERT_FALSE(findings.empty());
  for (const auto& f : findings) {
    const analysis::CatalogueEntry* e = analysis::FindCatalogueEntry(f.id);
    ASSERT_NE(e, nullptr) << f.id;
    EXPECT_EQ(f.source, e->source) << f.id;
    EXPECT_FALSE(f.title.empty()) << f.id;
    EXPECT_GT(f.method_step, 0) << f.id;
  }
}

TEST(DiagnoseOptions, OneSourceRunsOnlyItsAnalyzers) {
  Job job = LoadSkew();
  analysis::AnalysisInput input(job);
  auto logs = diagnose::Diagnose(input, diagnose::DiagnoseOptions::Only({Source::kLogs}));
  EXPECT_TRUE(logs.findings.empty());
  EXPECT_FALSE(logs.root_cause_named);
  EXPECT_FALSE(logs.root_cause);
  EXPECT_TRUE(logs.not_checked.empty());

  auto all = diagnose::Diagnose(input);
  EXPECT_TRUE(all.root_cause_named);
  EXPECT_TRUE(all.root_cause);
  EXPECT_FALSE(all.not_checked.empty());  // no NCCL log, topology or environment given
  auto trace = diagnose::Diagnose(input, diagnose::DiagnoseOptions::Only({Source::kTrace}));
  ASSERT_EQ(trace.findings.size(), all.findings.size());
  for (size_t i = 0; i < all.findings.size(); ++i) {
    EXPECT_EQ(trace.findings[i].id, all.findings[i].id);
    EXPECT_EQ(trace.findings[i].source, Source::kTrace);
  }
}

}  // namespace
}  // namespace commdx
