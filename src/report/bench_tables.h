// Tables `commdx bench` (and diagnose, for nccl-tests files) shows: the setup, the sweep with
// nccl-tests' columns in nccl-tests' order (so the two can be compared by eye), the summary
// (plateau, latency floor, alpha-beta fit, efficiency against the link), P2P and repro tables.
#pragma once

#include <vector>

#include "analysis/bench_summary.h"
#include "model/bench_result.h"
#include "report/report.h"

namespace commdx::report {

// `summaries`: one per result (AnalysisInput::bench_summaries).
void AddBenchTables(const std::vector<BenchResult>& results,
                    const std::vector<analysis::BenchSummary>& summaries, Report& report);

}  // namespace commdx::report
