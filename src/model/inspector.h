// What NCCL's Inspector profiler plugin recorded: one record per completed collective of one
// communicator on one rank (ext-profiler/inspector, output format v4). The plugin keeps only the
// last collective per communicator between two dump passes, so a rank's coll_sn may have gaps;
// records of one collective match across ranks by (comm_id, coll_sn). docs/inputs.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"

namespace commdx {

struct InspectorRecord {
  // header: {"id":"0xb0300b53755d79","rank":0,"n_ranks":2,"nnodes":2}
  std::string comm_id;  // commHash as "0x%lx" cut to 16 characters by the plugin
  int rank = -1;
  int n_ranks = 0;
  int nnodes = 0;
  // metadata
  std::string hostname;
  int64_t pid = 0;
  int64_t dump_ns = 0;  // when the dump pass wrote it (host clock), not when the collective ran
  // coll_perf
  std::string coll;  // "AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce"
  uint64_t coll_sn = 0;  // per communicator and function (comm->seqNumber[func])
  uint64_t msg_bytes = 0;     // count * sizeof(type): per rank for AllGather/ReduceScatter
  int64_t exec_ns = 0;        // a late peer's wait is inside it on the ranks that came early
  std::string timing_source;  // "kernel_gpu" | "kernel_cpu" | "collective_cpu"
  double algbw_gbps = 0;
  double busbw_gbps = 0;
  // NCCL_INSPECTOR_DUMP_VERBOSE=1 only (host clock of the process, gettimeofday):
  bool verbose = false;
  int64_t coll_start_ns = 0;    // the host started the collective (the rank called it)
  int64_t kernel_start_ns = 0;  // earliest channel kernel start seen by the host
  int64_t kernel_stop_ns = 0;   // latest channel kernel stop seen by the host
  int channels = 0;
  SourceLoc where;  // file:line of the record
};

}  // namespace commdx
