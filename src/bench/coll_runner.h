// The collective cases (all_reduce ... sendrecv): an nccl-tests-style size sweep, out-of-place
// and in-place, per-size warm-up, adaptive iterations, then a correctness run per point.
#pragma once

#include "base/result.h"
#include "bench/backend.h"
#include "bench/options.h"
#include "bench/watchdog.h"
#include "model/bench_result.h"

namespace commdx::bench {

Result<BenchResult> RunCollective(Backend& backend, Watchdog* watchdog, CollectiveType kind,
                                  const RunOptions& options);

// Fills the live-run header fields of a result (library, version, launch, topology).
BenchResult NewLiveResult(const Backend& backend, const std::string& case_key);

}  // namespace commdx::bench
