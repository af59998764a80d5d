// One trace event as read from the JSON, before it becomes part of the model. Views point into
// the part being parsed and are valid only until the builder has taken the event.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace commdx::ingest::trace_build {

// Kineto `cat` values. Older traces write "Kernel", "Memcpy", "Memset", "Runtime", "Operator".
enum class EventCat : uint8_t {
  kNone,  // no cat (metadata, "Record Window End")
  kUnknown,
  kKernel,
  kMemcpy,
  kMemset,
  kRuntime,  // cuda_runtime, hip_runtime, privateuse1_runtime...
  kDriver,   // cuda_driver
  kCudaSync,
  kCpuOp,
  kUserAnnotation,
  kGpuUserAnnotation,
  kPythonFunction,
  kFlow,     // ac2g, async_cpu_to_gpu, fwdbwd
  kIgnored,  // known categories commdx does not use (Trace, overhead, cpu_instant_event...)
  // Activity of a device or profiler commdx does not model: MTIA's command-processor events
  // (mtia_ccp_events: per-processing-element execution, DMA and event-wait packets), CUPTI's
  // range profiler (cuda_profiler_range). Counted as "seen, not analysed", never dropped silently.
  kOtherDevice,
};
inline constexpr size_t kEventCats = static_cast<size_t>(EventCat::kOtherDevice) + 1;

// The collective arguments PyTorch writes on NCCL kernels and on `record_param_comms`:
//   "Collective name": "allreduce", "In msg nelems": 8400896, "Out msg nelems": 8400896,
//   "Group size": 2, "dtype": "Float", "In split size": "[]", "Out split size": "[]",
//   "Process Group Name": "0", "Process Group Description": "default_pg",
//   "Process Group Ranks": "[0, 1]", "Seq": 12, "Src Rank": 0, "Dst Rank": 1
struct CollArgs {
  std::string_view coll_name, dtype, pg_name, pg_desc, pg_ranks, in_split, out_split;
  int64_t in_nelems = -1;
  int64_t out_nelems = -1;
  int64_t group_size = -1;
  int64_t seq = -1;
  int64_t src_rank = -1;
  int64_t dst_rank = -1;
  // One rank's buffer in bytes where nelems and dtype are unknown (NCCL's NVTX payload: the send
  // buffer of all_gather / gather, the receive buffer of reduce_scatter / scatter).
  int64_t rank_bytes = -1;
  bool present = false;  // "Collective name" was seen
};

// Phases the builder takes nothing from but the count: instants, counters, async, object and
// begin/end events. A reader may skip the rest of such an event once it has read "ph".
inline bool IsUnusedPhase(char ph) {
  switch (ph) {
    case 'i': case 'I': case 'C': case 'b': case 'e': case 'n': case 'B': case 'E': case 't':
    case 'P': case 'O': case 'N': case 'D':
      return true;
    default:
      return false;
  }
}

// The one metadata event ("ph": "M") the builder reads: a thread's name, in args.name. Others
// (process_name, process_labels, *_sort_index...) are counted only.
inline constexpr std::string_view kThreadNameMeta = "thread_name";

struct RawEvent {
  char ph = 0;
  EventCat cat = EventCat::kNone;
  std::string_view cat_text;
  std::string_view name;  // raw: JSON escapes as written (RankBuilder unescapes when interning)
  std::string_view pid;   // as written, quotes removed
  std::string_view tid;
  int64_t ts_ns = 0;  // µs in the file, ns here; relative to baseTimeNanoseconds if the file is
  int64_t dur_ns = 0;
  bool has_ts = false;
  bool has_dur = false;
  bool bad_ts = false;  // present but not a number
  bool bad_dur = false;
  // args
  int64_t device = -1;
  int64_t stream = -1;
  int64_t correlation = -1;
  int64_t external_id = -1;
  int64_t grid_x = 0;
  int64_t bytes = -1;
  int64_t flow_id = -1;
  std::string_view meta_name;  // args.name of "M" events
  // Collective args, only where the event has any (most do not: kept out of line so that a
  // RawEvent stays cheap to create for millions of events). Owned by the parser.
  const CollArgs* coll = nullptr;
  uint64_t offset = 0;  // file offset of the event's '{'
};

}  // namespace commdx::ingest::trace_build
