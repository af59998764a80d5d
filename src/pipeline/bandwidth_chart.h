// Bandwidth against message size for the HTML report, always beside what the link should give:
//   trace: the achieved bus bandwidth of the job's collectives (median per size, nccl-tests
//          factors, transfer time only where ranks were matched) against the link model
//          busbw(S) = S_bus / (latency + S_bus / peak) of analysis/trace_busbw;
//   bench: a sweep's measured bus bandwidth (commdx bench or an nccl-tests file) against the
//          link's line rate per direction, which the bench efficiency is measured against.
#pragma once

#include <cstddef>
#include <vector>

#include "analysis/bench_summary.h"
#include "analysis/trace_facts.h"
#include "model/bench_result.h"
#include "report/charts.h"

namespace commdx::pipeline {

// One chart per collective type with a measured size, most calls first, at most `max_charts`.
// At most `max_points` sizes per chart: beyond it sizes are pooled per quarter octave.
std::vector<report::XYChart> TraceBandwidthCharts(const analysis::TraceFacts& facts,
                                                  size_t max_charts = 4, size_t max_points = 200);

// One chart per result that has a size sweep.
// `summaries`: one per result (AnalysisInput::bench_summaries).
std::vector<report::XYChart> BenchBandwidthCharts(
    const std::vector<BenchResult>& results, const std::vector<analysis::BenchSummary>& summaries);

}  // namespace commdx::pipeline
