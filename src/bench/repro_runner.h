// The repro case (docs/method.md, step 11): a compute kernel of set duration stands in for the
// backward pass, and the gradients are all-reduced in buckets on a second stream — each bucket
// as soon as its share of the compute is done (overlap), or all after it (serial). A sweep over
// bucket sizes gives the achievable step time, the best bucket size and the step time without
// communication. If this is fast and the job is slow, the training loop is at fault.
#pragma once

#include "base/result.h"
#include "bench/backend.h"
#include "bench/options.h"
#include "bench/watchdog.h"
#include "model/bench_result.h"

namespace commdx::bench {

Result<BenchResult> RunRepro(Backend& backend, Watchdog* watchdog, const RunOptions& options);

}  // namespace commdx::bench
