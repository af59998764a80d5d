// One attribution of a rank's GPU idle (docs/trace-metrics.md, "GPU idle: one cause per
// interval"). Every gap between GPU work is charged once, in this order:
//   queued   the GPU op that ends the gap had been launched (its launch call had returned) before
//            the gap began: the GPU was not waiting for the CPU but for something else (another
//            stream, an event, a CUDA graph's internal dependency);
//   capture  the part of the gap inside a CUDA-graph capture (cudaStreamBeginCapture to
//            cudaStreamEndCapture, cudaGraphInstantiate): kernels launched are recorded, not run;
//   data     the part in which the thread the GPU waited on (the one that launched the op ending
//            the gap; the main thread if unknown) was inside a data-loading region;
//   alloc    the part in which that thread was inside an allocator call (cudaMalloc, cudaFree,
//            cudaHostAlloc, hipMalloc...; kHostFlagAlloc);
//   sync     a blocking call [s0, s1] during which the GPU drained (the gap holds s1 and began at
//            or after s0) put the CPU s1 - s0 behind: it is charged at most that much of the rest
//            of the gap, from its start; a sync made when the GPU had already drained gets
//            nothing, and of several syncs draining into one gap only the longest is charged;
//   host_gap the part in which no thread that launches GPU work (nor the main thread) was inside
//            a profiled op or runtime call, in a stretch of >= kMinHostGapNs between two ops
//            (idle_host_activity.h): logging, checkpointing, Python between steps;
//   launch   the rest: the GPU waited for the CPU to launch work, inside a CPU op (charged by
//            name to the top-level op of the thread the GPU waited on) or between two ops.
// The parts are disjoint and their union is the idle: nothing is charged twice.
#pragma once

#include "analysis/trace_timeline.h"
#include "model/trace.h"

namespace commdx::analysis {

// `busy` is the union of the rank's GPU work (RankTimeline::busy).
IdleParts AttributeIdle(const RankTrace& t, const Intervals& busy);

}  // namespace commdx::analysis
