// What `commdx bench replay` measured: the job's own collectives (model/replay_plan.h) run
// again with NCCL, alone on the fabric, next to what they cost inside the job. Filled live by
// bench/replay_runner.h, written to and read back from a snapshot (`--save`), judged by the
// replay analyzer: communication that is slow alone points at NCCL or the fabric, communication
// that is fast alone but slow in the job points at the training loop.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/bench_result.h"
#include "model/collective.h"

namespace commdx {

// One distinct call shape of a group (kind, size, type, reduction, root) and its calls.
struct ReplayShape {
  CollectiveType type = CollectiveType::kUnknown;
  uint64_t bytes = 0;  // nccl-tests "size" of one call
  uint64_t count = 0;  // NCCL's count argument
  std::string dtype;   // nccl-tests spelling: "float", "bfloat16"
  std::string redop;   // "sum", ...; "none" for kinds without a reduction
  int root = -1;       // broadcast/reduce: the root; send_recv: the peer is rank + root
  int job_calls = 0;        // calls of this shape in the replayed part of the job
  double job_us = 0;        // median time of one call in the job; 0 = not known
  double job_wait_us = -1;  // median part of it spent waiting for the last rank; -1 = unknown
  BenchPoint alone;         // the shape run back to back alone (nccl-tests' method)
  double sequence_us = 0;   // median time of one such call inside the replayed sequence
};

struct ReplayGroupResult {
  std::string name;        // process group / communicator name in the job
  std::string desc;        // "default_pg", "" when unknown
  int job_ranks = 0;       // ranks of the group in the job
  int replay_ranks = 0;    // ranks it was replayed on (per sub-communicator)
  int side_by_side = 1;    // sub-communicators of replay_ranks ranks that ran it at once
  int steps = 0;           // training steps the job's calls span (0: not known)
  int sequence_calls = 0;  // calls in the replayed sequence (one step where steps are known)
  std::vector<ReplayShape> shapes;
  // The sequence of one step (or of all calls when no steps are known), per step: the job's
  // summed call times, and the same calls replayed back to back.
  double job_sequence_us = 0;  // 0 = not known (the input has no timing)
  double job_wait_sequence_us = -1;
  double replay_sequence_us = 0;
};

struct ReplayResult {
  std::string source;              // the input kind the calls came from ("trace", ...)
  std::vector<std::string> files;  // the inputs read
  std::string nccl_version;
  std::string nccl_library;
  std::string launch;  // as BenchResult::launch
  int job_world_size = 0;
  int nranks = 0;  // ranks of this replay
  BenchTopology topology;
  std::vector<BenchRankGpu> rank_gpus;
  std::vector<ReplayGroupResult> groups;
  // The job's NCCL settings (analysis/replay_settings.h) as "NAME=value": those this replay ran
  // with (applied, or already so in its environment), and those it left out (--no-job-settings,
  // or this environment sets another value). A replay with them and one without, of the same
  // job, tell what the settings cost (analysis/replay_verdict.h).
  std::vector<std::string> settings_applied;
  std::vector<std::string> settings_left_out;
  std::vector<std::string> left_out;  // calls and groups not replayed, and why
  std::vector<std::string> notes;     // caveats (fewer ranks than the job, sizes scaled)
  double wall_s = 0;
  std::string file;  // the snapshot it was read from (empty when live)
};

}  // namespace commdx
