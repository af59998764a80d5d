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

// One operation measured as nccl-tests does: warm-up (more on a sweep's first point, the
// communicators' first use), adaptive timed iterations, then a correctness run when
// options.check. The slowest rank's median and spread, algbw and busbw.
Result<BenchPoint> MeasureCollPoint(Backend& backend, Watchdog* watchdog, const CollSpec& spec,
                                    uint64_t seed, const RunOptions& options, bool first_point);

// Fills the live-run header fields of a result (library, version, launch, topology).
BenchResult NewLiveResult(const Backend& backend, const std::string& case_key);

}  // namespace commdx::bench
