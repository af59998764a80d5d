// The charts each command puts in its report (drawn by the HTML renderer only): for traces the
// step timeline, the collective size histograms and bandwidth against size; for size sweeps
// (commdx bench, nccl-tests files) bandwidth against size. Their series are data computed here
// from the analysis results; the report only draws them.
#pragma once

#include <vector>

#include "analysis/bench_summary.h"
#include "analysis/trace_facts.h"
#include "model/bench_result.h"
#include "model/job.h"
#include "report/charts.h"

namespace commdx::pipeline {

// `threads`: files read at once where a chart reads ranks again (the request's --threads).
report::Charts TraceCharts(const Job& job, const analysis::TraceFacts& facts, int threads = 0);
// `summaries`: one per result (AnalysisInput::bench_summaries).
report::Charts BenchCharts(const std::vector<BenchResult>& results,
                           const std::vector<analysis::BenchSummary>& summaries);

}  // namespace commdx::pipeline
