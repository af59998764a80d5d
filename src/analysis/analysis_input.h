// What every analyzer reads: the job, and what more than one reader needs from it, computed the
// first time an analyzer or a caller asks, then kept — the trace facts (timelines, cross-rank
// match, step breakdown, bandwidth), the communication pattern, who was late per step, and each
// size sweep's summary. The analyzers and the report's table data (table_data.h) read the same
// values, so each is computed once per run. The getters are safe to call from several threads
// at once (the analyzers run in parallel): the first caller computes, the others wait for it.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "analysis/trace_facts.h"
#include "model/job.h"

namespace commdx::analysis {

struct BenchSummary;   // bench_summary.h
struct LateStep;       // trace_arrival_skew.h
struct PatternRow;     // trace_pattern.h
struct ReplayVerdict;  // replay_verdict.h

class AnalysisInput {
 public:
  // threads: for the per-rank work of the trace facts and for running the analyzers (0: one a
  // core, 1: all on the calling thread).
  explicit AnalysisInput(const Job& job, int threads = 0);
  ~AnalysisInput();
  AnalysisInput(const AnalysisInput&) = delete;
  AnalysisInput& operator=(const AnalysisInput&) = delete;

  const Job& job() const { return job_; }
  int threads() const { return threads_; }
  // Empty when the job has no traces. On a big trace these are the costly part of the analysis;
  // the trace command and diagnose draw tables and charts from the same facts.
  const TraceFacts& trace_facts() const;
  // CommPattern(job.trace); empty without traces.
  const std::vector<PatternRow>& comm_pattern() const;
  // ExplainedLateRanks(job.trace, trace_facts()); empty without traces.
  const std::vector<LateStep>& late_ranks() const;
  // SummarizeBench of each job.bench entry, in the same order.
  const std::vector<BenchSummary>& bench_summaries() const;
  // JudgeReplays(job): one verdict per replayed group of job.replay.
  const std::vector<ReplayVerdict>& replay_verdicts() const;

 private:
  struct Derived;  // what the four above hold once computed
  const Job& job_;
  int threads_ = 0;
  mutable std::once_flag facts_once_;
  mutable std::optional<TraceFacts> facts_;  // filled once, on first use
  std::unique_ptr<Derived> derived_;
};

}  // namespace commdx::analysis
