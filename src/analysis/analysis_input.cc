#include "analysis/analysis_input.h"

#include "analysis/bench_summary.h"
#include "analysis/replay_verdict.h"
#include "analysis/trace_arrival_skew.h"
#include "analysis/trace_pattern.h"

namespace commdx::analysis {

struct AnalysisInput::Derived {
  std::optional<std::vector<PatternRow>> pattern;
  std::optional<std::vector<LateStep>> late;
  std::optional<std::vector<BenchSummary>> bench;
  std::optional<std::vector<ReplayVerdict>> replay;
};

AnalysisInput::AnalysisInput(const Job& job) : job_(job), derived_(std::make_unique<Derived>()) {}

AnalysisInput::~AnalysisInput() = default;

const TraceFacts& AnalysisInput::trace_facts() const {
  if (!facts_) facts_ = job_.trace.empty() ? TraceFacts{} : ComputeTraceFacts(job_);
  return *facts_;
}

const std::vector<PatternRow>& AnalysisInput::comm_pattern() const {
  auto& p = derived_->pattern;
  if (!p) p = job_.trace.empty() ? std::vector<PatternRow>{} : CommPattern(job_.trace);
  return *p;
}

const std::vector<LateStep>& AnalysisInput::late_ranks() const {
  auto& l = derived_->late;
  if (!l)
    l = job_.trace.empty() ? std::vector<LateStep>{}
                           : ExplainedLateRanks(job_.trace, trace_facts());
  return *l;
}

const std::vector<BenchSummary>& AnalysisInput::bench_summaries() const {
  auto& b = derived_->bench;
  if (!b) {
    b.emplace();
    b->reserve(job_.bench.size());
    for (const BenchResult& r : job_.bench) b->push_back(SummarizeBench(r));
  }
  return *b;
}

const std::vector<ReplayVerdict>& AnalysisInput::replay_verdicts() const {
  auto& r = derived_->replay;
  if (!r) r = JudgeReplays(job_);
  return *r;
}

}  // namespace commdx::analysis
