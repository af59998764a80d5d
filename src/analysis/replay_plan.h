// The collectives a job issued, as `commdx bench replay` replays them (model/replay_plan.h), built
// from the best input the job left: profiler traces (Kineto or Nsight Systems), else NCCL
// Inspector records, else Flight Recorder dumps, else NCCL COLL lines. docs/replay.md says what
// each input gives and what is assumed or left out.
#pragma once

#include "model/job.h"
#include "model/replay_plan.h"

namespace commdx::analysis {

// Per process group the calls of its lowest rank that has the group, in issue order, in NCCL's
// terms. A source none of whose calls can be replayed gives way to the next. With no source, an
// empty plan whose left_out says so.
ReplayPlan BuildReplayPlan(const Job& job);

}  // namespace commdx::analysis
