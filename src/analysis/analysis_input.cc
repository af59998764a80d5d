#include "analysis/analysis_input.h"

#include "analysis/bench_summary.h"
#include "analysis/replay_verdict.h"
#include "analysis/trace_arrival_skew.h"
#include "analysis/trace_pattern.h"

namespace commdx::analysis {

struct AnalysisInput::Derived {
  std::once_flag pattern_once, late_once, bench_once, replay_once;
  std::optional<std::vector<PatternRow>> pattern;
  std::optional<std::vector<LateStep>> late;
  std::optional<std::vector<BenchSummary>> bench;
  std::optional<std::vector<ReplayVerdict>> replay;
};

AnalysisInput::AnalysisInput(const Job& job, int threads)
    : job_(job), threads_(threads), derived_(std::make_unique<Derived>()) {}

AnalysisInput::~AnalysisInput() = default;

const TraceFacts& AnalysisInput::trace_facts() const {
  std::call_once(facts_once_, [this] {
    facts_ = job_.trace.empty() ? TraceFacts{} : ComputeTraceFacts(job_, threads_);
  });
  return *facts_;
}

const std::vector<PatternRow>& AnalysisInput::comm_pattern() const {
  auto& p = derived_->pattern;
  std::call_once(derived_->pattern_once, [&] {
    p = job_.trace.empty() ? std::vector<PatternRow>{} : CommPattern(job_.trace);
  });
  return *p;
}

const std::vector<LateStep>& AnalysisInput::late_ranks() const {
  auto& l = derived_->late;
  std::call_once(derived_->late_once, [&] {
    l = job_.trace.empty() ? std::vector<LateStep>{}
                           : ExplainedLateRanks(job_.trace, trace_facts());
  });
  return *l;
}

const std::vector<BenchSummary>& AnalysisInput::bench_summaries() const {
  auto& b = derived_->bench;
  std::call_once(derived_->bench_once, [&] {
    b.emplace();
    b->reserve(job_.bench.size());
    for (const BenchResult& r : job_.bench) b->push_back(SummarizeBench(r));
  });
  return *b;
}

const std::vector<ReplayVerdict>& AnalysisInput::replay_verdicts() const {
  auto& r = derived_->replay;
  std::call_once(derived_->replay_once, [&] { r = JudgeReplays(job_); });
  return *r;
}

}  // namespace commdx::analysis
