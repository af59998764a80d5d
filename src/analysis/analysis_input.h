// What every analyzer reads: the job, and the trace facts (timelines, cross-rank match, step
// breakdown, bandwidth) computed the first time an analyzer or a caller asks, then kept.
#pragma once

#include <optional>

#include "analysis/trace_facts.h"
#include "model/job.h"

namespace commdx::analysis {

class AnalysisInput {
 public:
  explicit AnalysisInput(const Job& job) : job_(job) {}
  AnalysisInput(const AnalysisInput&) = delete;
  AnalysisInput& operator=(const AnalysisInput&) = delete;

  const Job& job() const { return job_; }
  // Empty when the job has no traces. On a big trace these are the costly part of the analysis;
  // the trace command and diagnose draw tables and charts from the same facts.
  const TraceFacts& trace_facts() const;

 private:
  const Job& job_;
  mutable std::optional<TraceFacts> facts_;  // filled once, on first use
};

}  // namespace commdx::analysis
