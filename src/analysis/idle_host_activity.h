// What a rank's host was doing, in the forms the idle attribution (idle_attribution.h) charges
// GPU idle to, collected once per rank before its gaps are walked. Times are the rank's clock.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/trace_timeline.h"
#include "model/trace.h"

namespace commdx::analysis {

// Host time outside every profiled op for at least this long is a host gap (logging,
// checkpointing, metrics, Python between steps); shorter stretches are Python between two ops
// and stay launch-bound. On the bundled healthy captures the longest stretch between ops on
// the launching threads is 0.57 ms (docs/trace-metrics.md, "GPU idle").
inline constexpr int64_t kMinHostGapNs = 1'000'000;

// A top-level CPU op on one thread: not inside another op of that thread (step marks aside).
struct TopOp {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  uint32_t name = 0;
};

struct HostActivity {
  // CUDA-graph capture, any thread: from the start of cudaStreamBeginCapture to the end of
  // cudaStreamEndCapture, and each cudaGraphInstantiate call.
  Intervals capture;
  std::vector<Intervals> data;   // data-loading regions per thread (RankTrace::threads index)
  std::vector<Intervals> alloc;  // allocator calls (kHostFlagAlloc) per thread
  std::vector<std::vector<TopOp>> top_ops;  // per thread, in time order, disjoint
  // Host time inside no op and no runtime call of the threads that launch GPU work (and the
  // main thread) for >= kMinHostGapNs, between the first and last op; idle_ns left 0.
  std::vector<HostGapCharge> stretches;
  Intervals stretch_spans;  // the same stretches as intervals
};

HostActivity CollectHostActivity(const RankTrace& t);

}  // namespace commdx::analysis
