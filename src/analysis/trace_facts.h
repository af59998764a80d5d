// Everything the trace analyzers share, computed once per job: each rank's GPU timeline, the
// cross-rank match of collectives, the step breakdown, and per-collective bandwidth.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "analysis/rank_measures.h"
#include "analysis/trace_busbw.h"
#include "analysis/trace_cross_rank.h"
#include "analysis/trace_step_breakdown.h"
#include "analysis/trace_timeline.h"
#include "model/job.h"

namespace commdx::analysis {

struct TraceFacts {
  // Per TraceSet::ranks index: the rank's timeline and measures (rank_measures.h), shared with
  // the rank itself where its reader digested it (RankTrace::derived).
  std::vector<std::shared_ptr<const RankDigest>> digests;
  CrossRank cross;
  std::vector<StepBreakdown> steps;
  std::vector<StepBreakdown> rank_means;  // per trace index (MeanOfRank)
  std::vector<CollectiveBw> bandwidth;    // per matched or single-rank collective instance
  LinkExpectation link;
  // DDP's bucket cap as the job log printed it (rank 0's, else the first rank's); -1: unknown.
  int64_t ddp_bucket_cap_bytes = -1;
  std::string ddp_source;  // "job.log:110 (rank 0)"

  size_t ranks() const { return digests.size(); }
  // Unpacked from the digest on each call (packed_timeline.h): keep it while it is used.
  RankTimeline timeline(size_t i) const { return digests[i]->timeline.Unpack(); }
  const RankMeasures& measure(size_t i) const { return digests[i]->measures; }
};

// threads: for the per-rank parts (0: one a core); the result is the same for any count.
TraceFacts ComputeTraceFacts(const Job& job, int threads = 0);

// Mean step time over the ranks that have steps (ns); 0 if none.
double MeanStepNs(const TraceFacts& facts);

}  // namespace commdx::analysis
