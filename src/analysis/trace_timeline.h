// Interval arithmetic over one rank's trace, shared by the trace analyzers: the GPU timeline as
// sorted, disjoint intervals per kind of work (compute, communication, copies/sets), and the
// main thread's data-loading time. Times are the rank's own clock (ns).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "model/trace.h"

namespace commdx::analysis {

struct Interval {
  int64_t start = 0;
  int64_t end = 0;
};
using Intervals = std::vector<Interval>;  // sorted by start, disjoint, non-empty

// Sorts and merges overlapping or touching intervals.
Intervals MergeIntervals(std::vector<Interval> v);
// Total length of `x` inside [lo, hi).
int64_t LengthIn(const Intervals& x, int64_t lo, int64_t hi);
// Total length of x ∩ y inside [lo, hi).
int64_t OverlapIn(const Intervals& x, const Intervals& y, int64_t lo, int64_t hi);
Intervals UnionOf(const Intervals& x, const Intervals& y);
Intervals IntersectionOf(const Intervals& x, const Intervals& y);
// The parts of x inside [lo, hi): IntersectionOf(x, {{lo, hi}}), found by binary search
// instead of a walk from x's start (called per gap or per step, the walk made it quadratic).
Intervals PartsIn(const Intervals& x, int64_t lo, int64_t hi);
// Parts of [lo, hi) not covered by x.
Intervals GapsIn(const Intervals& x, int64_t lo, int64_t hi);

// One stretch of host time outside any profiled op that GPU idle was charged to.
struct HostGapCharge {
  int64_t start_ns = 0;  // the stretch on the host (may reach past the GPU gap)
  int64_t end_ns = 0;
  uint32_t before = 0;  // RankTrace::names index of the op that ended where it begins
  uint32_t after = 0;   // ... and of the op that began where it ends
  int64_t idle_ns = 0;  // GPU idle charged to it
};

// Where a rank's GPU idle goes (idle_attribution.h, docs/trace-metrics.md "GPU idle"): each
// interval with no kernel, copy or set running is in exactly one of queued, capture, data,
// alloc, sync, host_gap, launch.
struct IdleParts {
  Intervals queued;    // the next GPU op had been launched before the gap: not waiting for the CPU
  Intervals capture;   // inside a CUDA-graph capture: the kernels launched are recorded, not run
  Intervals data;      // the thread the GPU waited on was in a data-loading region
  Intervals alloc;     // ... was inside an allocator call (cudaMalloc, cudaFree, hipMalloc...)
  Intervals sync;      // created by a blocking sync: at most the time it blocked, after the drain
  Intervals host_gap;  // the host was inside no profiled op for >= kMinHostGapNs
  Intervals launch;    // waiting for the CPU to launch work (CPU ops, Python between them)
  // Runtime-call index of each sync charged, with what it was charged (ns); sorted by call.
  std::vector<std::pair<int32_t, int64_t>> sync_charges;
  // Launch idle per top-level CPU op of the thread the GPU waited on (RankTrace::names index;
  // 0: between ops), sorted by name.
  std::vector<std::pair<uint32_t, int64_t>> launch_ops;
  std::vector<HostGapCharge> host_gaps;  // in time order
};

struct RankTimeline {
  Intervals compute;       // compute kernels
  Intervals comm;          // NCCL/RCCL kernels
  Intervals other;         // memcpy / memset
  Intervals busy;          // all of the above
  Intervals data_loading;  // main-thread data-loader annotations (CPU side)
  Intervals host_sync;     // blocking runtime calls (any thread)
  IdleParts idle;          // the GPU idle, each interval charged to one cause
};

RankTimeline BuildTimeline(const RankTrace& t);

// The step windows of a rank, or one window over its GPU work if it has no steps.
std::vector<Step> StepWindows(const RankTrace& t);

int64_t Median(std::vector<int64_t> v);
double Mean(const std::vector<double>& v);

}  // namespace commdx::analysis
