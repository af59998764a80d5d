// What NCCL's RAS service reported about a job (the `ncclras` client's STATUS report, text or
// JSON, NCCL 2.24+): per communicator the ranks that answered and those missing, whether a missing
// process is considered dead, and the errors and mismatches RAS found; or, from its monitor mode
// (NCCL 2.29+), the peer events as they happened. docs/findings/ras.md.
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
  bool dead = false;          // considered dead: unreachable over the RAS network (~60 s)
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

// One event of RAS's monitor mode (`ncclras -m`, NCCL 2.29+), as the process the client talks
// to saw it: a peer joined (PEER_NEW), stopped answering (PEER_UNRESPONSIVE,
// PEER_KEEPALIVE_TIMEOUT), was declared dead (PEER_DEAD, PEER_TIMEOUT_DEAD), answered again
// (PEER_RECOVERED), and the connection events of `-m trace`.
struct RasEvent {
  std::string time;   // "2026-12-06 17:50:01", local time of the answering process
  int64_t time_ns = -1;  // `time` as ns since 1970 read as UTC (for differences); -1 = unreadable
  std::string type;   // "PEER_DEAD"
  std::string group;  // JSON "group": "LIFECYCLE" / "TRACE"; "" in text
  RasRank peer;       // pid, host, GPU where the event names the process; else host = its address
  std::string details;
  SourceLoc where;

  // Declared dead: PEER_DEAD, PEER_TIMEOUT_DEAD.
  bool Dead() const { return type == "PEER_DEAD" || type == "PEER_TIMEOUT_DEAD"; }
  // Lost: dead, or not answering (PEER_UNRESPONSIVE, PEER_KEEPALIVE_TIMEOUT, PEER_SEND_STUCK).
  bool Lost() const {
    return Dead() || type == "PEER_UNRESPONSIVE" || type == "PEER_KEEPALIVE_TIMEOUT" ||
           type == "PEER_SEND_STUCK";
  }
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
  bool monitor = false;          // monitor mode's events, not a STATUS report
  std::vector<RasEvent> events;  // in the order written
};

}  // namespace commdx
