// The adaptive iteration loop every case shares: run batches until the slowest rank's median
// is stable, the time budget is spent, or the iteration cap is reached. Decisions use only
// the TimeMatrix, which every process holds in full, so all processes stop together.
#pragma once

#include <functional>

#include "base/result.h"
#include "bench/backend.h"
#include "bench/options.h"

namespace commdx::bench {

using BatchFn = std::function<Result<TimeMatrix>(int iters)>;

// fixed_batch > 0 (CUDA graph mode): every batch has exactly that many iterations.
// max_batch > 0: no batch is larger (fixed counts are split into batches too).
Result<TimeMatrix> MeasureAdaptive(const BatchFn& run, const RunOptions& options,
                                   int fixed_batch = 0, int max_batch = 0);

}  // namespace commdx::bench
