// The charts each command puts in its report (drawn by the HTML renderer only): for traces the
// step timeline, the collective size histograms and bandwidth against size; for size sweeps
// (commdx bench, nccl-tests files) bandwidth against size.
#pragma once

#include <vector>

#include "analysis/trace_facts.h"
#include "model/bench_result.h"
#include "model/job.h"
#include "report/charts.h"

namespace commdx::report {

Charts TraceCharts(const Job& job, const analysis::TraceFacts& facts);
Charts BenchCharts(const std::vector<BenchResult>& results);

}  // namespace commdx::report
