#include "analysis/trace_analyzers.h"

#include "analysis/trace_arrival_skew.h"
#include "analysis/trace_findings.h"
#include "analysis/trace_host_sync.h"
#include "analysis/trace_pattern.h"

namespace commdx::analysis {

std::vector<Finding> FindTraceIssuesWith(const Job& job, const TraceFacts& facts,
                                         const Options& options) {
  using Fn = std::vector<Finding> (*)(const TraceSet&, const TraceFacts&, const Options&);
  static constexpr Fn kAnalyzers[] = {
      &FindPattern,       &FindExposedComm,  &FindSmallCollectives, &FindHostSync,
      &FindLaunchBound,   &FindDataStall,    &FindArrivalSkew,      &FindSlowCollectiveBw,
      &FindCommSerialized,
  };
  std::vector<Finding> out;
  for (Fn fn : kAnalyzers)
    for (Finding& f : fn(job.trace, facts, options)) {
      f.source = "trace";
      out.push_back(std::move(f));
    }
  return out;
}

std::vector<Finding> FindTraceIssues(const Job& job, const Options& options) {
  if (job.trace.empty()) return {};
  TraceFacts facts = ComputeTraceFacts(job);
  return FindTraceIssuesWith(job, facts, options);
}

}  // namespace commdx::analysis
