// Tables `commdx bench` (and diagnose, for nccl-tests files) shows: the setup, the sweep with
// nccl-tests' columns in nccl-tests' order (so the two can be compared by eye), the summary
// (plateau, latency floor, alpha-beta fit, efficiency against the link), P2P and repro tables.
#pragma once

#include <vector>

#include "model/bench_result.h"
#include "report/report.h"

namespace commdx::report {

void AddBenchTables(const std::vector<BenchResult>& results, Report& report);

}  // namespace commdx::report
