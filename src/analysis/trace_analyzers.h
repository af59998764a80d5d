// The trace analyzers as one registry entry: the shared facts (timelines, cross-rank match, step
// breakdown, bandwidth) are computed once, then each analyzer (one per file) reads them.
#pragma once

#include <vector>

#include "analysis/registry.h"
#include "analysis/trace_facts.h"

namespace commdx::analysis {

// Registry entry: every trace finding for the job (nothing when it has no traces).
std::vector<Finding> FindTraceIssues(const Job& job, const Options& options);

// The same with facts the caller already computed (commdx trace shows them as tables too).
std::vector<Finding> FindTraceIssuesWith(const Job& job, const TraceFacts& facts,
                                         const Options& options);

}  // namespace commdx::analysis
