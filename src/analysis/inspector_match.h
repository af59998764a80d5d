// NCCL Inspector records matched across ranks: one MatchedColl per (communicator, collective
// function, coll_sn) with every rank's record of it (NCCL numbers each function's collectives on
// its own: AllGather #0 and AllReduce #0 are two collectives). The rank whose kernel ran shortest
// is the one the others waited for (a collective cannot finish before its last rank arrives, and
// the plugin times the kernel from its start on each rank), so each collective splits into the late
// rank's transfer and the others' wait. docs/findings/inspector.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/job.h"

namespace commdx::analysis {

struct MatchedColl {
  const InspectorRecord* first = nullptr;     // any rank's record: comm, coll, size, n_ranks
  std::vector<const InspectorRecord*> ranks;  // one per rank seen, by rank
  bool complete = false;                      // every rank of the communicator is there
  int late_rank = -1;       // the shortest exec time (complete and >= 2 ranks only)
  int64_t transfer_ns = 0;  // the late rank's exec time
  int64_t wait_ns = 0;      // longest exec time minus the late rank's: the longest wait
  // Verbose records of one host: when the host saw each rank's kernel start; the late rank's
  // start minus the earliest. -1 when not known (not verbose, or hosts differ).
  int64_t kernel_start_skew_ns = -1;
  int kernel_start_late_rank = -1;
};

struct InspectorComm {
  std::string id;
  std::string name;  // NCCL 2.30's comm_name ("DP Group 0"); empty before, "unknown" when none
  int n_ranks = 0;
  int nnodes = 0;
  int ranks_seen = 0;
  bool one_host = true;            // every record from one hostname: one clock
  std::vector<MatchedColl> colls;  // by function, then coll_sn
};

// Per communicator (by id), its collectives matched across ranks.
std::vector<InspectorComm> MatchInspector(const std::vector<InspectorRecord>& records);

// How findings name it: `0x9b08cb12e3d529`, or `0x9b08cb12e3d529 ("DP Group 0")` where the
// records carry a name.
std::string InspectorCommLabel(const InspectorComm& c);

// "nvlink-only" (one node), "network" (every rank its own node), "mixed", "single-rank": the
// plugin's own exporter's classes.
const char* InspectorCommType(const InspectorComm& c);

}  // namespace commdx::analysis
