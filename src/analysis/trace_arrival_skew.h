// Who the other ranks wait for (docs/trace-metrics.md): per step, the rank that arrived last at the
// collectives that made others wait, how long they waited, and what that rank was busy with before
// it arrived — found by comparing its time since the step started with the earliest rank's:
// the category (GPU compute, data loading, host sync, other CPU time) it spent the most extra time
// in. Finding trace.arrival_skew, one per culprit rank.
#pragma once

#include <string>
#include <vector>

#include "analysis/registry.h"
#include "analysis/trace_facts.h"

namespace commdx::analysis {

struct LateStep {
  int64_t step = -1;
  int late_rank = -1;
  int late_trace = -1;
  int64_t caused_wait_ns = 0;  // sum over the step's collectives of the longest wait
  int instances = 0;           // collectives it was last at (wait >= 20 µs)
  std::string doing;           // "GPU compute (+18.2 ms)", "data loading (+60.1 ms)", ...
  std::string doing_key;       // "compute", "data", "sync", "cpu", "queued", "comm",
                               // "other", "unclear"
  int64_t extra_ns = 0;        // its extra time in that category
  int64_t worst_wait_ns = 0;   // the waiting at the collective that was explained
};

std::vector<LateStep> LateRanksPerStep(const TraceSet& set, const TraceFacts& facts);
// The same, with doing_key "unclear" where the extra time explains less than half the waiting.
std::vector<LateStep> ExplainedLateRanks(const TraceSet& set, const TraceFacts& facts);

// Reads the late steps the input keeps (AnalysisInput::late_ranks), which the report shows too.
std::vector<Finding> FindArrivalSkew(const AnalysisInput& input, const Options& options);

}  // namespace commdx::analysis
