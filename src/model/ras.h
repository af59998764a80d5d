// What NCCL's RAS service reported about a job (the `ncclras` client's STATUS report, text or
// JSON, NCCL 2.24+): per communicator the ranks that answered and those missing, whether a missing
// process is considered dead, and the errors and mismatches RAS found. docs/findings/ras.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"

namespace commdx {

struct RasRank {
  int rank = -1;
  std::string host;
  int64_t pid = 0;
  int gpu = -1;
  bool unresponsive = false;  // JSON missing_ranks: no answer within the RAS timeouts
  bool dead = false;          // considered dead: unreachable over the RAS network (~80 s)
  int64_t collectives = -1;   // operations launched, summed over functions (-1: not given)
  bool error = false;         // init_state / async_error not ncclSuccess, or abort_flag
};

struct RasComm {
  std::string hash;            // commHash, 16 hex digits, lower case, no 0x (RAS text prints it so)
  int size = 0;                // ranks in the communicator (0: not given)
  std::string status;          // text table: RUNNING, INIT, FINALIZE, ABORT, NOCOMM ("" from JSON)
  std::string errors;          // text: OK, INCOMPLETE, MISMATCH, ERROR and combinations
  std::vector<RasRank> ranks;  // that answered (JSON)
  std::vector<RasRank> missing;    // that did not
  std::vector<std::string> notes;  // text lines RAS wrote about it (mismatch, errors)
  SourceLoc where;
};

struct RasReport {
  std::string path;
  bool json = false;
  bool repaired = false;  // NCCL 2.28.9's JSON without a comma after "nvml_dev", repaired
  std::string nccl_version;
  std::string timestamp;  // JSON "timestamp" (local time of the answering process)
  std::vector<RasComm> comms;
  std::vector<RasRank> dead_processes;        // text DEAD section
  std::vector<RasRank> incomplete_processes;  // text INCOMPLETE section: no data from them
  int timeouts = 0;  // RAS timeouts while gathering (JSON "timeouts_count", text warning)
};

}  // namespace commdx
