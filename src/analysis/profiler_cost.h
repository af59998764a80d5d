// What the PyTorch profiler adds to a profiled step's CPU time, estimated from the events it
// recorded (docs/trace-metrics.md, "The profiler's own cost"). Every op the profiler records
// and every CUDA runtime or driver call it intercepts (through CUPTI) makes the host slower
// than in the same step unprofiled, so a profiled step looks more launch-bound than the job
// is. The costs per event are a measurement (docs/measurements/profiler-cost.md): a loop of
// one trivial op, profiled and not, on the 1xH200 machine's Xeon with PyTorch 2.11. They are a
// lower bound: the same machine's profiled training steps ran 1.2-2.5x slower than unprofiled,
// more than these costs account for.
#pragma once

#include <cstdint>

#include "model/trace.h"

namespace commdx::analysis {

// Extra host time per recorded CPU op (aten::view: 2.6 us unprofiled, 4.5 us profiled).
inline constexpr int64_t kProfilerOpCostNs = 1'900;
// Extra host time per runtime/driver call, beyond its op's (x.add_(1): one op and one
// cudaLaunchKernel, 10.4 us unprofiled, 18.0 us profiled, minus the op's 1.9 us).
inline constexpr int64_t kProfilerCallCostNs = 5'700;

struct ProfilerCost {
  bool estimated = false;  // a PyTorch profiler trace with complete steps
  double ops_per_step = 0;
  double calls_per_step = 0;
  int64_t per_step_ns = 0;  // ops x kProfilerOpCostNs + calls x kProfilerCallCostNs
};

// Over the rank's steps that the trace does not cut (all of them if every step is cut). Nsight
// Systems traces get none: nsys records no CPU ops and its per-call cost is not measured.
ProfilerCost EstimateProfilerCost(const RankTrace& t);

}  // namespace commdx::analysis
