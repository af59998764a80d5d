// What the trace analyzers read from one rank's own events, measured once per rank beside its
// GPU timeline (trace_facts.cc, on the workers). An analyzer that needs more of a rank than its
// timeline, steps and collectives takes it from here, so that the per-rank pass is the one
// place that walks a rank's GPU ops, runtime calls and host ops; the cross-rank work after it
// reads only these measures, the timelines and the collectives.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/profiler_cost.h"
#include "analysis/trace_timeline.h"
#include "model/trace.h"

namespace commdx::analysis {

struct RankMeasures {
  uint64_t gpu_ops = 0;  // GPU ops the rank recorded (kernels, copies, sets, syncs)
  // What the PyTorch profiler added to a step's CPU time (profiler_cost.h).
  ProfilerCost profiler_cost;
  // Kernels: median duration; launches: runtime calls that launch GPU work (trace.launch_bound).
  int64_t median_kernel_ns = 0;
  uint64_t launches = 0;
  // The data-loading host op holding the most time (the alphabetically first on a tie); empty:
  // none recorded (trace.data_stall).
  std::string data_loader_op;
  // Median CPU time of a collective call's record_param_comms op; 0: none (small collectives).
  int64_t median_call_cpu_ns = 0;
  // GradientCommAfterBackward (trace_findings.h) of the rank (trace.exposed_comm).
  double gradient_comm_after_backward = -1;
  // Start times of GPU ops whose launch is not in the trace (issued before it began), sorted;
  // only where the trace has runtime calls at all (the step breakdown's partial steps).
  std::vector<int64_t> orphan_starts;
};

// One pass (or a few) over the rank's events; `timeline` is the rank's BuildTimeline.
RankMeasures MeasureRank(const RankTrace& t, const RankTimeline& timeline);

}  // namespace commdx::analysis
