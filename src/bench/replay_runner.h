// `commdx bench replay`: the collectives a job issued (model/replay_plan.h), run again with
// NCCL on this machine's ranks. Per process group: every distinct call shape alone, back to back
// as nccl-tests runs it, and the calls of one step in the job's order, back to back; both next
// to what the calls cost in the job (model/replay_result.h). docs/replay.md.
#pragma once

#include "base/result.h"
#include "bench/backend.h"
#include "bench/options.h"
#include "bench/watchdog.h"
#include "model/replay_plan.h"
#include "model/replay_result.h"

namespace commdx::bench {

struct ReplayOptions {
  RunOptions run;        // iterations, warm-up, budget, correctness check, progress
  double scale = 1;      // every call's count multiplied by this (0 < scale <= 1)
  int max_calls = 2000;  // most calls in the replayed sequence of one group
};

// A group is replayed when its ranks can be formed here: a group that spans the job on however
// many ranks this run has (one node's share of a bigger job, said in notes), any other group
// only when it has exactly this run's rank count. What is not replayed is listed in left_out.
Result<ReplayResult> RunReplay(Backend& backend, Watchdog* watchdog, const ReplayPlan& plan,
                               const ReplayOptions& options);

}  // namespace commdx::bench
