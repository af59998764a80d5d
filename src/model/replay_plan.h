// What `commdx bench replay` replays: the collectives one job issued, per process group, in
// issue order, with what each cost inside the job. Format-free: built from whatever the job left
// (Kineto traces, Nsight Systems exports read as traces, Flight Recorder dumps, NCCL COLL lines,
// NCCL Inspector JSONL) by analysis/replay_plan.h, replayed by bench/replay_runner.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/collective.h"

namespace commdx {

// One call as the job issued it, in the terms NCCL takes (nccl.h): a count of elements per rank
// parameter, an ncclDataType_t, an ncclRedOp_t and a root.
struct ReplayCall {
  CollectiveType type = CollectiveType::kUnknown;
  int dtype = -1;   // ncclDataType_t: 0 int8 ... 7 float32, 9 bfloat16 (model/nccl_calls.h)
  int red_op = -1;  // ncclRedOp_t 0 sum .. 4 avg; -1 none (not a reduction) or unknown
  int root = -1;    // broadcast/reduce root, send/recv peer (rank in the group); -1 none
  // NCCL's count argument: all_reduce/broadcast/reduce: elements of the buffer; all_gather:
  // elements each rank sends; reduce_scatter: elements each rank receives; alltoall: elements
  // each rank sends to each peer (nccl-tests' convention).
  uint64_t count = 0;
  uint64_t bytes = 0;  // nccl-tests' "size" of the operation (model/trace.h Collective::bytes)
  // Time the call took in the job (its kernel from start to end), ns; -1 when the input has
  // no timing (NCCL COLL lines).
  int64_t in_job_ns = -1;
  // Part of in_job_ns spent waiting for the last rank to arrive, where the input shows it (all
  // ranks' traces, Inspector); -1 when not known.
  int64_t wait_ns = -1;
  int64_t seq = -1;   // the job's sequence number of the call in its group, where known
  int32_t step = -1;  // index of the training step it fell in, where the input has steps
};

// One process group (one NCCL communicator) and its calls as one rank saw them.
struct ReplayGroup {
  std::string name;        // "0", a hash, the communicator id (Inspector, NCCL log)
  std::string desc;        // "default_pg", "" when unknown
  std::vector<int> ranks;  // global ranks of the group, sorted; empty when unknown
  int size = 0;            // ranks in the group (>= ranks.size())
  int source_rank = -1;    // the global rank whose view `calls` is
  int steps = 0;           // complete training steps the calls span (0: no steps known)
  std::vector<ReplayCall> calls;  // issue order
};

// An NCCL setting the job ran with that changes how NCCL moves data (not where: interfaces and
// devices are the machine's), so that the replay runs as the job's communication did.
struct ReplaySetting {
  std::string name;   // "NCCL_MAX_NCHANNELS"
  std::string value;  // "1"
  std::string where;  // "nccl.node0.123.log:41", the line that showed it
};

struct ReplayPlan {
  std::string source;  // the input kind the calls came from: "trace", "flight_recorder", ...
  std::vector<std::string> files;  // the files read for it
  int world_size = 0;              // ranks in the job, 0 when unknown
  std::vector<ReplayGroup> groups;
  // What could not be replayed and why (calls of unknown size, kinds NCCL has no call for);
  // each line a sentence a user can read.
  std::vector<std::string> left_out;
  // What the input did not say and the plan assumes (a reduction's operator, a datatype where
  // only bytes are known); each line a sentence a user can read.
  std::vector<std::string> assumed;
  // The job's NCCL settings (analysis/replay_settings.h) for the replay to run with.
  std::vector<ReplaySetting> settings;
};

}  // namespace commdx
