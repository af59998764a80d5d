#include "analysis/analysis_input.h"

namespace commdx::analysis {

const TraceFacts& AnalysisInput::trace_facts() const {
  if (!facts_) facts_ = job_.trace.empty() ? TraceFacts{} : ComputeTraceFacts(job_);
  return *facts_;
}

}  // namespace commdx::analysis
