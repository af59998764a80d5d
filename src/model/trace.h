// What PyTorch profiler (Kineto) traces say about a job, format-free: per rank the GPU ops
// (kernels, copies, sets), the host side (CPU ops, annotations, runtime calls) linked to them, the
// collectives with their arguments, and the training steps; across ranks the process groups.
// All times are int64 nanoseconds on the rank's own clock (epoch-based where the trace says so).
// Structs are compact on purpose: a rank's trace can hold millions of events.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "model/collective.h"
#include "model/comm_kernels.h"

namespace commdx {

// Bytes of one element of a PyTorch dtype as Kineto writes it ("Float", "BFloat16", "Long"...);
// 0 if unknown.
int DtypeBytes(std::string_view dtype);

enum class GpuOpKind : uint8_t {
  kKernel,      // compute kernel
  kCommKernel,  // NCCL/RCCL kernel
  kMemcpy,
  kMemset,
  kSync,  // cuda_sync on the GPU timeline (Stream/Event/Context Sync): a wait, not work
};

enum class CopyKind : uint8_t { kNone, kHtoD, kDtoH, kDtoD, kHtoH, kPtoP, kOther };

// The events are kept for every rank until the cross-rank analyses are done, so they hold only
// what the analyses read: the ids that link them (correlation, external id) are used while a
// rank is built (ingest/trace_build) and not kept. 48, 32 and 32 bytes (host ops packed to about
// 9 once the rank is built: PackedHostOps).
struct GpuOp {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  uint64_t bytes = 0;  // memcpy/memset bytes where given
  uint32_t name = 0;   // index into RankTrace::names
  int32_t stream = -1;
  int32_t collective = -1;  // index into RankTrace::collectives for comm kernels
  int32_t launch = -1;      // index into RankTrace::runtime of the launching call
  int32_t grid_x = 0;       // NCCL: the channel count
  int16_t device = -1;
  GpuOpKind kind = GpuOpKind::kKernel;
  CopyKind copy = CopyKind::kNone;
};

enum class HostOpKind : uint8_t { kCpuOp, kUserAnnotation };

// Flags on host ops and runtime calls, computed once at ingest.
enum HostFlag : uint8_t {
  kHostFlagNone = 0,
  kHostFlagSync = 1,         // cudaStreamSynchronize, cudaDeviceSynchronize, cudaEventSynchronize,
                             // synchronous cudaMemcpy: the CPU blocks on the GPU
  kHostFlagLaunch = 2,       // launches GPU work (kernel, copy, set)
  kHostFlagDataLoader = 4,   // a data-loading annotation (DataLoader __next__, "dataloader"...)
  kHostFlagStep = 8,         // the step annotation
  kHostFlagItem = 16,        // aten::item / aten::_local_scalar_dense
  kHostFlagCollective = 32,  // record_param_comms or a c10d collective op
  kHostFlagAlloc = 64,       // the allocator: cudaMalloc/cudaFree, cudaMallocHost/FreeHost,
                             // cudaHostAlloc, cuMemAlloc/cuMemFree, cuMemCreate/Map, hipMalloc,
                             // hipFree, hipHostMalloc...: blocks the host (cudaFree also waits
                             // for the device to drain)
  kHostFlagCapture = 128,    // cudaStreamBeginCapture / cudaStreamEndCapture (and cu/hip):
                             // bounds of a CUDA-graph capture, whose kernels are recorded, not run
};

// A CPU operator or user annotation (record_function) on one host thread.
struct HostOp {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  uint32_t name = 0;
  uint32_t thread = 0;  // index into RankTrace::threads
  HostOpKind kind = HostOpKind::kCpuOp;
  uint8_t flags = kHostFlagNone;
};

// A rank's host ops once its trace is built, packed: they are the most numerous events (9.1k of
// the 14.8k of a rank of examples/ddp_data_stall) and are kept for every rank until the cross-rank
// analyses are done, so each is stored as the difference of its start from the previous op's, its duration,
// name, thread, kind and flags in variable-length integers: about 9 bytes instead of 32
// (docs/measurements/performance.md). Ops must be sorted by start. A checkpoint every kBlock ops
// lets a reader start at a time without decoding what comes before.
class PackedHostOps {
 public:
  static constexpr size_t kBlock = 128;

  PackedHostOps() = default;
  explicit PackedHostOps(const std::vector<HostOp>& ops);

  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  size_t bytes() const { return data_.size() + marks_.size() * sizeof(Mark); }
  std::vector<HostOp> Unpack() const;
  // fn(const HostOp&) for each op that starts at or after `from_ns`, in order, until fn returns
  // false.
  template <class Fn>
  void ForEachFrom(int64_t from_ns, Fn fn) const;

 private:
  struct Mark {
    int64_t start_ns;  // of the block's first op
    size_t at;         // its first byte in data_
  };
  // Decodes the op at data_[at] (its start relative to `prev_start`); returns the next byte.
  size_t Decode(size_t at, int64_t prev_start, HostOp& op) const;

  std::vector<uint8_t> data_;
  std::vector<Mark> marks_;
  size_t count_ = 0;
};

template <class Fn>
void PackedHostOps::ForEachFrom(int64_t from_ns, Fn fn) const {
  if (count_ == 0) return;
  // The last block that starts before `from_ns`: an op at or after it may be in it.
  size_t lo = 0, hi = marks_.size();
  while (hi - lo > 1) {
    const size_t mid = lo + (hi - lo) / 2;
    (marks_[mid].start_ns < from_ns ? lo : hi) = mid;
  }
  size_t at = marks_[lo].at;
  int64_t prev = marks_[lo].start_ns;
  HostOp op;
  for (size_t i = lo * kBlock; i < count_; ++i) {
    if (i % kBlock == 0) prev = marks_[i / kBlock].start_ns, at = marks_[i / kBlock].at;
    at = Decode(at, prev, op);
    prev = op.start_ns;
    if (op.start_ns >= from_ns && !fn(static_cast<const HostOp&>(op))) return;
  }
}

// A CUDA/HIP runtime or driver call (cudaLaunchKernel, cudaMemcpyAsync, cudaStreamSynchronize...).
struct RuntimeCall {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  uint32_t name = 0;
  uint32_t thread = 0;
  int32_t gpu_op = -1;  // index into RankTrace::gpu_ops of what it launched
  uint8_t flags = kHostFlagNone;
};

struct ThreadInfo {
  std::string id;    // tid as written (int or string)
  std::string name;  // from thread_name metadata, may be empty
  uint32_t ops = 0;
  bool pid_is_tid = false;  // some event has pid == tid: the process's first (main) thread
};

struct StreamInfo {
  int16_t device = -1;
  int32_t stream = -1;
  uint32_t ops = 0;
  int64_t busy_ns = 0;
  int64_t comm_ns = 0;
  bool is_comm = false;  // most of its kernel time is NCCL kernels
};

struct DeviceInfo {
  int id = -1;
  std::string name;  // "NVIDIA H200"
  int64_t total_memory_bytes = 0;
  int sm_count = 0;
  int compute_major = 0;
  int compute_minor = 0;
};

// One collective (or point-to-point) call as one rank saw it.
struct Collective {
  int64_t start_ns = 0;  // its GPU kernel; 0/0 when no kernel was found
  int64_t end_ns = 0;
  int64_t issue_ns = -1;  // CPU time it was launched (runtime call start)
  int64_t in_nelems = -1;
  int64_t out_nelems = -1;
  uint64_t bytes = 0;  // message size as nccl-tests counts it (see trace-metrics.md); 0 = unknown
  int64_t seq = -1;    // "Seq" arg where present
  int32_t gpu_op = -1;
  int32_t pg = -1;  // index into RankTrace::process_groups
  int32_t group_size = 0;
  int32_t peer = -1;   // the other rank of a send/recv where known
  int32_t grid_x = 0;  // channels
  uint32_t name = 0;   // "Collective name" as written, else the kernel name
  uint32_t dtype = 0;  // dtype as written ("Float"), index into names; 0 = unknown
  CollectiveType type = CollectiveType::kUnknown;
  // Whose kernel runs it (from the kernel's name): NCCL's (also when no kernel was found), or
  // symmetric memory, a custom all-reduce, NVSHMEM, DeepEP.
  CommFamily family = CommFamily::kNccl;
  bool from_args = false;  // classified from the collective args, not from the kernel name
  bool launched = true;    // its launch is in the trace (false: issued before tracing started)
};

// Where a rank's steps came from, strongest first (trace-metrics.md, "Steps").
enum class StepSource : uint8_t {
  kNone,
  kProfilerStep,  // ProfilerStep#N marks of the profiler's schedule
  kAnnotation,    // the user's own repeating annotation ("iteration_N", "train_step")
  kOptimizer,     // from the end of one Optimizer.step#... to the end of the next
  kCollectives,   // one repetition of the rank's sequence of collectives
  kWholeTrace,    // no boundary found: the whole trace is one step
};
const char* StepSourceName(StepSource s);

struct Step {
  int64_t number = 0;        // N of ProfilerStep#N, else 0, 1, 2...
  int64_t cpu_start_ns = 0;  // the annotation on the CPU
  int64_t cpu_end_ns = 0;
  // The step's window on the GPU timeline; windows of consecutive steps tile it (see
  // trace-metrics.md, "step window").
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  // The trace cuts this step: its start was not seen (the first step of a source that only
  // marks ends) or its GPU work was lost at the end of the trace. Left out of the rank's mean.
  bool cut = false;
};

struct ProcessGroupInfo {
  std::string name;  // "Process Group Name" / pg_name ("0", "1", a hash)
  std::string desc;  // "default_pg", "undefined"
  std::vector<int> ranks;
  int size = 0;
};

// What an analysis derived from a rank's events right after the rank was built, kept with the
// rank (the analysis layer's RankDigest; opaque here). The model only holds it.
struct RankDerived {
  virtual ~RankDerived() = default;
};

struct RankTrace {
  std::string file;
  int rank = -1;            // -1 = unknown
  std::string rank_source;  // "distributedInfo", "file name", "unknown"
  int world_size = 0;
  std::string backend;       // "nccl", "gloo"
  std::string nccl_version;  // from distributedInfo where present
  std::string schema_version;
  std::vector<DeviceInfo> devices;
  std::vector<std::string> names;  // interned names; names[0] is ""
  std::vector<ThreadInfo> threads;
  std::vector<StreamInfo> streams;
  std::vector<GpuOp> gpu_ops;           // sorted by start
  // Sorted by start. While the rank is built (ingest/trace_build), and in traces made by hand, in
  // `host_ops`; once it is built, packed (`packed_host_ops`, `host_ops` empty). Read them through
  // HostOps(), ForEachHostOp() or ForEachHostOpFrom(), which take either.
  std::vector<HostOp> host_ops;
  PackedHostOps packed_host_ops;
  std::vector<HostOp> gpu_annotations;  // gpu_user_annotation ranges on the GPU timeline, sorted
  std::vector<RuntimeCall> runtime;     // sorted by start
  std::vector<Collective> collectives;  // in issue order
  std::vector<ProcessGroupInfo> process_groups;  // this rank's view (distributedInfo + args)
  std::vector<Step> steps;
  StepSource step_source = StepSource::kNone;
  std::string step_name;     // annotation the steps came from
  int32_t main_thread = -1;  // the training-loop thread (has the step annotations)
  int64_t base_time_ns = 0;  // baseTimeNanoseconds added to the file's relative times (0: none)
  int64_t first_ns = 0;      // earliest event
  int64_t last_ns = 0;       // latest event end
  uint64_t json_bytes = 0;
  uint64_t events = 0;
  bool has_gpu = false;
  // Derived once the rank was built, when the reader was asked to (ingest::LoadOptions::
  // rank_built); with events_freed, its GPU ops, runtime calls, host ops and GPU annotations are
  // gone (FreeEvents) and only what is derived, the collectives, steps, streams, threads and
  // names remain.
  std::shared_ptr<const RankDerived> derived;
  bool events_freed = false;

  const std::string& Name(uint32_t id) const { return names[id]; }
  // Frees the events (see `derived`), their memory returned.
  void FreeEvents();

  size_t HostOpCount() const { return host_ops.size() + packed_host_ops.size(); }
  // A copy of every host op, unpacked: for a reader that needs them by index.
  std::vector<HostOp> HostOps() const;
  // fn(const HostOp&) for each host op in order (from the first that starts at or after
  // `from_ns`), until fn returns false (void fn: all of them).
  template <class Fn>
  void ForEachHostOpFrom(int64_t from_ns, Fn fn) const;
  template <class Fn>
  void ForEachHostOp(Fn fn) const;
  // Packs `host_ops` into `packed_host_ops` and frees the vector (the rank is built).
  void PackHostOps();
};

template <class Fn>
void RankTrace::ForEachHostOpFrom(int64_t from_ns, Fn fn) const {
  if (!packed_host_ops.empty()) return packed_host_ops.ForEachFrom(from_ns, fn);
  auto it = std::lower_bound(host_ops.begin(), host_ops.end(), from_ns,
                             [](const HostOp& op, int64_t t) { return op.start_ns < t; });
  for (; it != host_ops.end(); ++it)
    if (!fn(*it)) return;
}

template <class Fn>
void RankTrace::ForEachHostOp(Fn fn) const {
  ForEachHostOpFrom(INT64_MIN, [&](const HostOp& op) {
    fn(op);
    return true;
  });
}

struct TraceSet {
  std::vector<RankTrace> ranks;  // sorted by rank (unknown ranks last, in file order)
  // Earlier profiling windows of the same job (torch.profiler with a repeating schedule writes
  // a trace per window and rank): read, not analysed; `ranks` holds each rank's latest window.
  std::vector<RankTrace> other_windows;
  std::vector<ProcessGroupInfo> process_groups;  // union over ranks, by name
  // How many ranks the job has, by the largest of distributedInfo.world_size, the process
  // group sizes and members, and the collectives' group sizes (0: nothing says).
  int world_size = 0;
  // Ranks the job has whose trace was not read (named where the traces list the members).
  std::vector<int> missing_ranks;
  // Fewer traces than the job has ranks: kernel times include waiting for ranks not seen, so
  // wait vs transfer, who arrives late and transfer-only bandwidth cannot be measured.
  bool incomplete() const {
    return !missing_ranks.empty() || world_size > static_cast<int>(ranks.size());
  }

  bool empty() const { return ranks.empty(); }
};

}  // namespace commdx
