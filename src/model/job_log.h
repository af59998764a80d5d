// What the job's own stdout/stderr (torchrun, srun, mpirun) says about hangs: PyTorch's
// ProcessGroupNCCL watchdog timeouts and the work status it prints with them. Format-free: the
// job_log importer fills it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "model/environment.h"

namespace commdx {

// "[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=808,
// OpType=ALLREDUCE, NumelIn=9801523, NumelOut=9801523, Timeout(ms)=600000) ran for 600020
// milliseconds before timing out." (fields missing in older PyTorch stay -1 / empty).
struct WatchdogTimeout {
  int rank = -1;
  int64_t seq = -1;
  std::string op;  // "ALLREDUCE", "_REDUCE_SCATTER_BASE", "COALESCED"
  int64_t numel_in = -1;
  int64_t numel_out = -1;
  int64_t timeout_ms = -1;
  int64_t ran_ms = -1;
  // The process group where the line names it ("[PG ID 2 PG GUID 9(desc) Rank 4] ... Watchdog
  // caught"); empty in the PyTorch versions whose line starts "[Rank 4]" alone.
  std::string pg;       // PG ID: numbers the groups of one process, not the same on every rank
  std::string pg_guid;  // PG GUID (the group's name): the same on every rank of the group
  SourceLoc loc;
  std::string line;
};

// "[PG ID 0 PG GUID 0(default_pg) Rank 1] Exception (either an error or timeout) detected by
// watchdog at work: 808, last enqueued NCCL work: 811, last completed NCCL work: 807." and its
// other spellings: which work failed on a rank, and how far the rank had got.
struct WatchdogStatus {
  int rank = -1;
  std::string pg;       // "0", "1" (the PG ID), "" when not printed
  std::string pg_desc;  // "default_pg" where printed
  std::string pg_guid;  // "9" of "PG GUID 9": the group's name, the same on every rank
  int64_t failed_seq = -1;
  int64_t last_enqueued = -1;
  int64_t last_completed = -1;
  // "Timeout at NCCL work: N": the work timed out. The other spellings say "an error or
  // timeout" / "failure": either.
  bool timed_out = false;
  SourceLoc loc;
  std::string line;
};

// One process group on one rank as ProcessGroupNCCL describes it when it starts:
// "ProcessGroupNCCL initialization options: size: 2, global rank: 0, TIMEOUT(ms): 600000, ...,
// PG Name: 0" and the "... environments: NCCL version: 2.28.9, TORCH_NCCL_ASYNC_ERROR_HANDLING:
// 3, ..." lines of the same group. The settings are the values in effect (defaults included),
// not only what the environment set.
struct ProcessGroupInit {
  int rank = -1;   // global rank
  std::string pg;  // PG ID ("0" for the default group), "" when not printed
  std::string pg_name;
  std::string pg_desc;  // "default_pg" where printed
  int size = -1;
  int64_t timeout_ms = -1;
  std::string nccl_version;
  std::vector<EnvVar> settings;  // TORCH_NCCL_*, NCCL_*, TORCH_DISTRIBUTED_DEBUG as printed
  SourceLoc loc;
};

// DDP's own account of its gradient buckets: "DDP Initialized with:" (bucket_cap_bytes,
// find_unused_parameters, bucket_sizes), "Reducer initialized with bucket_bytes_cap: ...",
// "2 buckets rebuilt with size limits: 4194304, 4194304 bytes.". -1 / empty: not printed.
struct DdpInit {
  int rank = -1;
  int64_t bucket_cap_bytes = -1;
  int find_unused_parameters = -1;  // 0 / 1
  std::vector<int64_t> bucket_sizes;
  std::vector<int64_t> rebuilt_limits;
  SourceLoc loc;
};

// One collective as TORCH_DISTRIBUTED_DEBUG=DETAIL's wrapper prints it before running it:
// "CollectiveFingerPrint(SequenceNumber=7, OpType=ALLREDUCE, TensorShape=[1048576],
// TensorDtypes=Float, ...)". SequenceNumber counts from 0 (the watchdog's SeqNum from 1).
struct CollectiveFingerprint {
  int rank = -1;
  int64_t seq = -1;
  std::string op;     // "ALLREDUCE", "_ALLGATHER_BASE"
  std::string shape;  // "[1048576]"
  std::string dtype;  // "Float"
};

// "[Rank 0]: Ranks 1, 3 failed to pass monitoredBarrier in 5000 ms": under DETAIL every
// collective starts with a barrier the ranks must reach in time; these ranks never did. The
// collective the waiting rank was entering is its last "Running collective" line before it.
struct BarrierTimeout {
  int rank = -1;  // the rank that waited and reported it
  std::vector<int> missing;
  int64_t waited_ms = -1;
  CollectiveFingerprint entering;  // rank -1: not in the log
  SourceLoc loc;
  std::string line;
};

// "Detected mismatch between collectives on ranks. Rank 1 is running collective:
// CollectiveFingerPrint(...), but Rank 0 is running collective: CollectiveFingerPrint(...).
// Collectives differ in the following aspects: Op type: _ALLGATHER_BASEvs ALLREDUCE".
struct FingerprintMismatch {
  CollectiveFingerprint a, b;  // a: the rank that raised it
  bool cut = false;            // the line ends before b's fingerprint (b.rank -1: unknown)
  std::string aspects;         // what differs, as printed
  SourceLoc loc;
  std::string line;
};

// The heartbeat monitor and the end of a process it or the watchdog tore down (PyTorch 2.2 -
// 2.11), each line of one rank:
//   [rank2]:[E1229 20:29:13.091296956 ProcessGroupNCCL.cpp:1484] [PG ID 0 PG GUID 0(default_pg)
//     Rank 2] ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in
//     monitoring enqueued collectives. ...                                       (kStuck)
//   [rank0]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 0] Heartbeat monitor timed out! Process will
//     be terminated after dumping debug info. workMetaList_.size()=1   (kHeartbeatTimeout, 2.3)
//   [rank2]:[F1229 ...] [PG ID 0 PG GUID 0(default_pg) Rank 2] [...] Terminating the process after
//     attempting to dump debug info, due to ProcessGroupNCCL watchdog hang.   (kTerminating)
//   [rank5]:[E723 ...] [PG ID 0 PG GUID 0(default_pg) Rank 5] Received a dump signal due to a
//     collective timeout from  rank 2 and we will try our best to dump the debug info. Last
//     enqueued NCCL work: 136, last completed NCCL work: 136.                   (kDumpSignal)
enum class WatchdogEventKind { kStuck, kHeartbeatTimeout, kTerminating, kDumpSignal };

struct WatchdogEvent {
  WatchdogEventKind kind = WatchdogEventKind::kStuck;
  int rank = -1;        // the launcher's global rank where printed, else PyTorch's; -1: unknown
  std::string pg;       // PG ID where printed
  std::string pg_desc;  // "default_pg" where printed
  int64_t stuck_s = -1;        // kStuck: seconds without progress (the heartbeat timeout)
  int64_t pending_works = -1;  // kHeartbeatTimeout: workMetaList_.size()
  // kTerminating: "ProcessGroupNCCL watchdog hang", "collective timeout or exception", "NCCL
  // operations failed or timed out" (2.6+: "Some NCCL operations have failed or timed out. ...
  // we are taking the entire process down.")
  std::string reason;
  int from_rank = -1;          // kDumpSignal: the rank whose timeout started the dump
  bool from_self = false;      // kDumpSignal: "from this local rank"
  int64_t last_enqueued = -1;  // kDumpSignal
  int64_t last_completed = -1;
  SourceLoc loc;
  std::string line;
};

// One collective the Flight Recorder analyzer reported (python -m
// torch.distributed.flight_recorder.fr_trace, `torchfrtrace`; PyTorch 2.5 - 2.11), with the
// fields it printed below its headline:
//   Collective sequence number: 8 has errors                                      (kErrors)
//   internal record id: 7
//   group info: 0:default_pg
//   collective: nccl:all_reduce
//   ...
//   error msg: Culprit rank 1; Error type: COLLECTIVE_TYPE_MISMATCH, Expected collective type:
//     'all_reduce' does not match found collective type: '_all_gather_base'
// Headlines without a collective (kMissingDumps: "Missing dump files from ranks {1}") carry only
// the ranks.
enum class FrVerdict {
  kNotJoined,      // "Not all ranks joining collective, sequence number: 8" + missing ranks
  kErrors,         // "Collective sequence number: 8 has errors" + culprits
  kSizeMismatch,   // "Input/output mismatch in the collective sequence number: 8" (all_to_all)
  kUndecided,      // "We cannot decide what's wrong with this collective entry ... ranks ({3})"
  kNoErrors,       // "No errors found for this collective entry, There could be some other ..."
  kMissingDumps,   // "AssertionError: Missing dump files from ranks {1}"
};

struct FrCulprit {
  int rank = -1;
  std::string error_type;  // "COLLECTIVE_STATE_MISMATCH"
  std::string detail;      // "Expected state: 'scheduled' does not match found state: 'completed'"
};

struct FrAnalyzerEntry {
  FrVerdict verdict = FrVerdict::kErrors;
  int64_t seq = -1;        // collective sequence number; -1: not printed
  int64_t record_id = -1;  // "internal record id" / "at entry N"
  std::string group;       // "0:default_pg"
  std::string collective;  // "nccl:all_reduce"
  std::string state;       // "scheduled", "started", "completed"
  std::string input_sizes, output_sizes;  // as printed: "[[1048576]]"
  std::vector<int> missing_ranks;         // kNotJoined; kUndecided / kMissingDumps: no dump
  std::vector<int> expected_ranks;
  int world_size = -1;
  std::vector<FrCulprit> culprits;
  std::vector<std::string> frames;  // "all_reduce at .../distributed_c10d.py:2696"
  SourceLoc loc;
  std::string line;  // the headline
};

struct JobLogFacts {
  std::vector<WatchdogTimeout> timeouts;
  std::vector<WatchdogStatus> statuses;
  std::vector<ProcessGroupInit> process_groups;
  std::vector<DdpInit> ddp;  // one per rank that printed it
  std::vector<BarrierTimeout> barrier_timeouts;
  std::vector<FingerprintMismatch> mismatches;
  std::vector<WatchdogEvent> watchdog_events;
  std::vector<FrAnalyzerEntry> fr_analysis;  // from Flight Recorder analyzer output
  std::vector<std::string> files;
  bool empty() const {
    return timeouts.empty() && statuses.empty() && process_groups.empty() && ddp.empty() &&
           barrier_timeouts.empty() && mismatches.empty() && watchdog_events.empty() &&
           fr_analysis.empty();
  }
};

}  // namespace commdx
