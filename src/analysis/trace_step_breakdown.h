// Where each step's time goes on each rank's GPU (docs/trace-metrics.md). The parts are disjoint
// and add up to the step time:
//   compute            compute kernels running, no NCCL kernel at the same time
//   comm_overlapped    NCCL kernels running while compute kernels run
//   comm_exposed       NCCL kernels running with no compute; comm_exposed_wait of it is spent
//                      waiting for a late peer (from the cross-rank match)
//   other_gpu          only copies / sets running
//   idle_data          nothing running, charged to data loading (idle_attribution.h)
//   idle_host          nothing running otherwise; of it idle_sync was created by blocking syncs,
//                      idle_alloc by allocator calls, idle_capture lies in CUDA-graph capture,
//                      idle_host_gap in host time outside any profiled op, and idle_queued had
//                      its next GPU work already launched (not the CPU's doing); the rest,
//                      idle_launch(), is the GPU waiting for the CPU to launch
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/trace_cross_rank.h"
#include "analysis/trace_timeline.h"
#include "model/trace.h"

namespace commdx::analysis {

struct StepBreakdown {
  int trace = -1;  // index into TraceSet::ranks
  int rank = -1;
  int64_t step = 0;
  int64_t start_ns = 0;  // the step window, rank clock
  int64_t end_ns = 0;
  int64_t compute_ns = 0;
  int64_t comm_overlapped_ns = 0;
  int64_t comm_exposed_ns = 0;
  int64_t comm_exposed_wait_ns = 0;  // part of comm_exposed_ns
  // NCCL kernel time whose collective no other rank's trace matched: its wait is not measured,
  // so comm_exposed_wait_ns is a lower bound when this is > 0.
  int64_t comm_unmeasured_ns = 0;
  int64_t other_gpu_ns = 0;
  int64_t idle_host_ns = 0;
  int64_t idle_data_ns = 0;
  int64_t idle_sync_ns = 0;      // part of idle_host_ns
  int64_t idle_queued_ns = 0;    // part of idle_host_ns
  int64_t idle_alloc_ns = 0;     // part of idle_host_ns
  int64_t idle_capture_ns = 0;   // part of idle_host_ns
  int64_t idle_host_gap_ns = 0;  // part of idle_host_ns
  // The window holds GPU work launched before the trace began (the tail of an earlier step), or
  // the trace cuts the step (Step::cut): its parts are distorted, and rank means leave it out
  // when other steps are complete.
  bool partial = false;

  int64_t total_ns() const { return end_ns - start_ns; }
  int64_t comm_ns() const { return comm_overlapped_ns + comm_exposed_ns; }
  int64_t idle_launch_ns() const {
    return idle_host_ns - idle_sync_ns - idle_queued_ns - idle_alloc_ns - idle_capture_ns -
           idle_host_gap_ns;
  }
};

StepBreakdown MeasureWindow(const RankTimeline& tl, const Intervals& wait, int64_t start_ns,
                            int64_t end_ns);

// The step windows of a rank (none without GPU events), in step order, with trace, rank, step
// and `partial` set and nothing measured: which steps a rank's mean takes (StepsOfMean) is known
// from the rank alone. orphan_starts as below.
std::vector<StepBreakdown> RankStepWindows(const RankTrace& t, int trace,
                                           const std::vector<int64_t>& orphan_starts);
// The steps of trace `ti` (none for a trace without GPU events), in step order. orphan_starts:
// the rank's GPU ops launched before the trace began (RankMeasures::orphan_starts): a step
// holding one is partial.
std::vector<StepBreakdown> RankStepBreakdown(const TraceSet& set, size_t ti,
                                             const RankTimeline& timeline,
                                             const std::vector<int64_t>& orphan_starts,
                                             const CrossRank& cross);

// Mean over the complete steps of one rank (trace index; its one step if that is incomplete;
// none when several steps are all incomplete, a trace cut short); step = number of steps
// averaged.
StepBreakdown MeanOfRank(const std::vector<StepBreakdown>& steps, int trace);
// The steps that mean is taken over.
std::vector<const StepBreakdown*> StepsOfMean(const std::vector<StepBreakdown>& steps, int trace);

// Which of a rank's step windows holds a time, asked with times that never go back (a walk over
// the rank's time-ordered GPU ops or gaps): one pass over ops and steps together, not one over the
// steps per op.
class StepCursor {
 public:
  explicit StepCursor(std::vector<const StepBreakdown*> steps);
  // The window holding `ts`, or null; `ts` must not be less than the last one asked.
  const StepBreakdown* At(int64_t ts);
  // The index in the windows (in time order) from which those ending after `ts` start.
  size_t From(int64_t ts);
  const std::vector<const StepBreakdown*>& windows() const { return steps_; }

 private:
  std::vector<const StepBreakdown*> steps_;  // by start
  size_t k_ = 0;
};

}  // namespace commdx::analysis
