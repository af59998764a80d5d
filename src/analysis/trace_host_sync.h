// Accidental synchronisation (DESIGN.md §1 step 3): runtime calls that block the CPU until the
// GPU is done — cudaStreamSynchronize, cudaDeviceSynchronize, cudaEventSynchronize, synchronous
// cudaMemcpy, and the D2H copy + sync under aten::item / aten::_local_scalar_dense — each with the
// CPU op that issued it and what it cost: the GPU idles from when its queue drains until the CPU
// launches again. Finding trace.host_sync, per rank.
#pragma once

#include <string>
#include <vector>

#include "analysis/registry.h"
#include "analysis/trace_facts.h"

namespace commdx::analysis {

struct HostSync {
  int trace = -1;
  int32_t call = -1;       // index into RankTrace::runtime
  int64_t step = -1;
  int64_t blocked_ns = 0;  // duration of the blocking call
  int64_t gpu_idle_ns = 0;  // GPU idle from the call's start until the next GPU op starts
  std::string cause;       // innermost CPU op around the call ("aten::_local_scalar_dense")
  std::string context;     // outermost CPU op / annotation around it below the step
};

std::vector<HostSync> FindHostSyncs(const RankTrace& t, int trace, const RankTimeline& tl);

// The sum of gpu_idle_ns over the syncs inside steps: what FindHostSyncs would give, without
// looking for the causes (the launch-bound finding needs only this).
int64_t SyncIdleInSteps(const RankTrace& t, const RankTimeline& tl);

// The innermost and outermost CPU ops on `thread` that enclose [start, end] (ProfilerStep and
// its like excluded from the outermost); -1 when none.
std::pair<int32_t, int32_t> EnclosingOps(const RankTrace& t, uint32_t thread, int64_t start,
                                         int64_t end);

std::vector<Finding> FindHostSync(const TraceSet& set, const TraceFacts& facts,
                                  const Options& options);

}  // namespace commdx::analysis
