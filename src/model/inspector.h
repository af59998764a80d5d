// What NCCL's Inspector profiler plugin recorded: one record per completed collective of one
// communicator on one rank (ext-profiler/inspector, output format v4; NCCL 2.30's
// plugins/profiler/inspector writes the same records). Up to NCCL 2.29 the plugin keeps only the
// last collective per communicator between two dump passes; from 2.30 it keeps them all but those
// under 8 KiB (NCCL_INSPECTOR_DUMP_MIN_SIZE_BYTES) or without GPU kernel times. Either way a
// rank's coll_sn may have gaps; records of one collective match across ranks by (comm_id, coll,
// coll_sn). docs/findings/inspector.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"

namespace commdx {

struct InspectorRecord {
  // header: {"id":"0xb0300b53755d79","rank":0,"n_ranks":2,"nnodes":2}
  std::string comm_id;  // commHash as "0x%lx" cut to 16 characters by the plugin
  // NCCL 2.30 on, {"id":...,"comm_name":"DP Group 0",...}: the name the application gave the
  // communicator (ncclConfig_t commName), "unknown" when none; empty from older plugins.
  std::string comm_name;
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

// NCCL Inspector's Prometheus output from NCCL 2.30 on: per GPU and dump pass, the collectives
// (or sends/receives) of one communicator aggregated per (collective, size range, algorithm and
// protocol). No rank and no sequence number: buckets are compared across GPUs, not matched.
struct InspectorBucket {
  std::string version;    // the plugin's Prometheus format, "v5.1"
  std::string node;       // host name
  std::string gpu;        // "GPU0": the CUDA device of the process
  std::string comm;       // communicator name ("unknown" when NCCL had none), else its id
  int rank = -1;          // where a label gives it (forks of the plugin), else -1
  int n_ranks = 0;
  int nnodes = 0;
  std::string op;          // "AllReduce", ..., or "Send" / "Recv"
  bool p2p = false;        // from the nccl_p2p_* metrics
  uint64_t size_lo = 0;    // message_size "4-5MB": [4 MiB, 5 MiB); an exact size: lo == hi
  uint64_t size_hi = 0;
  std::string size_label;  // as printed, "4-5MB"
  std::string algo_proto;  // "RING_SIMPLE"; empty for point-to-point
  double busbw_gbps = 0;   // geometric mean over the bucket's operations
  double exec_us = 0;      // mean
  int64_t count = 0;       // operations in the bucket, where the output says (0: not said)
  double p99_us = -1;      // where the output has percentiles
  double max_us = -1;
  SourceLoc where;         // file:line of its first sample
};

}  // namespace commdx
