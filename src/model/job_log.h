// What the job's own stdout/stderr (torchrun, srun, mpirun) says about hangs: PyTorch's
// ProcessGroupNCCL watchdog timeouts and the work status it prints with them. Format-free: the
// job_log importer fills it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"

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
  int64_t failed_seq = -1;
  int64_t last_enqueued = -1;
  int64_t last_completed = -1;
  SourceLoc loc;
  std::string line;
};

struct JobLogFacts {
  std::vector<WatchdogTimeout> timeouts;
  std::vector<WatchdogStatus> statuses;
  std::vector<std::string> files;
  bool empty() const { return timeouts.empty() && statuses.empty(); }
};

}  // namespace commdx
