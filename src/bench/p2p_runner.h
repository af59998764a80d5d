// The p2p case: for every directed GPU pair, copy bandwidth and small-copy latency through the
// copy engine (cudaMemcpyPeerAsync) and through an SM copy kernel, one- and two-directional.
#pragma once

#include "base/result.h"
#include "bench/backend.h"
#include "bench/options.h"
#include "bench/watchdog.h"
#include "model/bench_result.h"

namespace commdx::bench {

Result<BenchResult> RunP2p(Backend& backend, Watchdog* watchdog, const RunOptions& options);

}  // namespace commdx::bench
