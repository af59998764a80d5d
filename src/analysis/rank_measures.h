// What the trace analyzers read from one rank's own events, measured once per rank beside its
// GPU timeline (trace_facts.cc, on the workers). An analyzer that needs more of a rank than its
// timeline, steps and collectives takes it from here, so that the per-rank pass is the one
// place that walks a rank's GPU ops, runtime calls and host ops; the cross-rank work after it
// reads only these measures, the timelines and the collectives.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "analysis/hta_compat.h"
#include "analysis/packed_timeline.h"
#include "analysis/profiler_cost.h"
#include "analysis/trace_step_breakdown.h"
#include "analysis/trace_timeline.h"
#include "model/trace.h"

namespace commdx::analysis {

// trace.serial_gpus (trace_serial_gpus.cc): one process driving several GPUs, over its uncut
// step windows; empty (steps 0) with fewer than two GPUs.
struct SerialGpus {
  std::map<int, double> busy_ns;                     // per device, summed over the steps used
  double step_ns = 0, union_ns = 0, busiest_ns = 0;  // summed over the steps used
  int steps = 0;
  int peer_copies = 0;  // peer (GPU-to-GPU) copies in those steps
  double peer_copy_ns = 0;
};
SerialGpus MeasureSerialGpus(const RankTrace& t);

// trace.allocator_churn (trace_allocator_churn.cc): the outermost allocator calls that start in
// the steps of the rank's mean.
struct AllocCalls {
  int64_t calls = 0;    // outermost allocator calls (a driver call inside cudaMalloc is one)
  int64_t host_ns = 0;  // time the host spent in them
  std::map<std::string, int64_t> by_name;
};
AllocCalls MeasureAllocCalls(const RankTrace& t, const std::vector<const StepBreakdown*>& steps);

// trace.shared_gpu (trace_shared_gpu.cc): compute kernels of the mean's steps that ran far over
// their own median, not beside the rank's own communication (`comm`).
struct Stretched {
  int64_t extra_ns = 0;  // over the kernel's median, summed
  int64_t runs = 0;
  int64_t kernels = 0;  // compute kernels looked at
  std::vector<int64_t> extras;
  std::map<uint32_t, int64_t> by_name;  // extra per kernel name
};
Stretched MeasureStretched(const RankTrace& t, const Intervals& comm,
                           const std::vector<const StepBreakdown*>& steps);

// trace.comm_serialized (trace_comm_serialized.cc): a stream shared by NCCL and compute, and
// NCCL kernels that held back compute launched before them; not measured without steps.
struct CommSerialSigns {
  bool shared_stream = false;
  int32_t stream = -1;
  size_t comm = 0;
  size_t blocked = 0;   // comm kernels that held back ready compute
  int64_t held_ns = 0;  // time ready compute was held back
};
CommSerialSigns MeasureCommSerialized(const RankTrace& t);

// trace.queued_idle (trace_queued_idle.cc): the long queued gaps inside the mean's steps, what
// ends them, and how far the CPU runs ahead.
struct QueuedGaps {
  int64_t idle_ns = 0;      // their time inside the steps
  int64_t in_graph_ns = 0;  // of it, gaps ended by an op a CUDA-graph launch started
  int64_t gaps = 0;
  int64_t longest_ns = 0;
  std::map<uint32_t, int64_t> by_next;  // name of the op ending the gap -> idle
  std::vector<int64_t> per_step;        // idle per step window (in time order)
  // Median time from a launch call's start to its op's start, over ops inside the steps.
  int64_t median_lead_ns = 0;
};
QueuedGaps MeasureQueuedGaps(const RankTrace& t, const Intervals& queued,
                             const std::vector<const StepBreakdown*>& steps);

// trace.host_sync (trace_host_sync.h): the blocking calls of a rank with steps and GPU work,
// over the steps of its mean.
struct HostSyncCounts {
  bool measured = false;  // the rank has steps and GPU work
  int64_t in_steps = 0;   // syncs counted
  int64_t in_work = 0;    // of them, between the step's kernel launches (not at its edge)
  int64_t blocked_ns = 0;
  size_t steps = 0;                                         // steps counted over
  std::map<std::string, std::pair<int, int64_t>> by_cause;  // "cause in context" -> calls, idle
};

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
  SerialGpus serial_gpus;
  AllocCalls alloc_calls;  // over the steps of the mean
  Stretched stretched;     // over the steps of the mean
  CommSerialSigns comm_serial;
  QueuedGaps queued;  // over the steps of the mean
  HtaCompat hta;      // ranks with GPU work only (the HTA-comparable table)
  HostSyncCounts host_syncs;
};

// One pass (or a few) over the rank's events; `timeline` is the rank's BuildTimeline.
RankMeasures MeasureRank(const RankTrace& t, const RankTimeline& timeline);

// Everything the trace analyses take from one rank's own events: its GPU timeline and its
// measures. Computed once per rank, either when the facts are (trace_facts.cc) or right after the
// rank is built (DigestRank, on the reader's worker), after which the rank's events can go.
struct RankDigest : RankDerived {
  PackedTimeline timeline;  // unpacked by its reader (TraceFacts::timeline), one rank at a time
  RankMeasures measures;
};
std::shared_ptr<const RankDigest> DigestOf(const RankTrace& t);
// The rank's digest (made now unless it has one), kept in t.derived; with free_events, the
// events are freed after it (RankTrace::FreeEvents).
void DigestRank(RankTrace& t, bool free_events);

}  // namespace commdx::analysis
