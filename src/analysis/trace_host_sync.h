// Accidental synchronisation (docs/method.md, step 3): runtime calls that block the CPU until the
// GPU is done — cudaStreamSynchronize, cudaDeviceSynchronize, cudaEventSynchronize, synchronous
// cudaMemcpy, and the D2H copy + sync under aten::item / aten::_local_scalar_dense — each with the
// CPU op that issued it and what it cost: the GPU idle it creates, as the one idle attribution
// (idle_attribution.h) charges it. Finding trace.host_sync, per rank.
#pragma once

#include <string>
#include <vector>

#include "analysis/registry.h"
#include "analysis/trace_facts.h"

namespace commdx::analysis {

struct HostSync {
  int trace = -1;
  int32_t call = -1;  // index into RankTrace::runtime
  int64_t step = -1;
  int64_t blocked_ns = 0;   // duration of the blocking call
  int64_t gpu_idle_ns = 0;  // GPU idle charged to it (at most blocked_ns; 0 if already drained)
  std::string cause;        // innermost CPU op around the call ("aten::_local_scalar_dense")
  std::string context;      // outermost CPU op / annotation around it below the step
};

std::vector<HostSync> FindHostSyncs(const RankTrace& t, int trace, const RankTimeline& tl);

// The syncs of a rank with steps and GPU work, counted over the steps of its mean (`mean`,
// StepsOfMean of its step windows), edges of the capture left out: what trace.host_sync reads.
HostSyncCounts MeasureHostSyncs(const RankTrace& t, int trace, const RankTimeline& tl,
                                const std::vector<const StepBreakdown*>& mean);

// The latest end of each block of kBlock host ops (in the trace's start order), and of each
// run of blocks above them as a binary tree, so that a walk back over the ops goes straight to
// the blocks that hold an op ending late enough: O(log n) per block found, not a look at every
// block of the window (a trace with a sync per copy asked ~300 blocks per sync).
class HostOpEnds {
 public:
  static constexpr size_t kBlock = 64;
  explicit HostOpEnds(const std::vector<HostOp>& ops);
  // The last block in [lo, hi) with an op ending at or after `end`, or -1.
  int64_t LastBlockEndingAfter(size_t lo, size_t hi, int64_t end) const;

 private:
  int64_t Last(size_t node, size_t node_lo, size_t node_hi, size_t lo, size_t hi,
               int64_t end) const;
  size_t leaves_ = 1;          // blocks, rounded up to a power of two
  std::vector<int64_t> tree_;  // [leaves_ + b]: block b's latest end; [k]: max of 2k, 2k + 1
};

// The innermost and outermost CPU ops on `thread` that enclose [start, end] (ProfilerStep and
// its like excluded from the outermost), among the 20,000 ops that start last at or before
// `start`; -1 when none. `ops`: the rank's host ops (RankTrace::HostOps), `ends` made of them.
std::pair<int32_t, int32_t> EnclosingOps(const std::vector<HostOp>& ops, const HostOpEnds& ends,
                                         uint32_t thread, int64_t start, int64_t end);

std::vector<Finding> FindHostSync(const TraceSet& set, const TraceFacts& facts,
                                  const Options& options);

}  // namespace commdx::analysis
