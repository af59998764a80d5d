// Interconnect benchmark results, format-free: filled by `commdx bench` (live) or by the
// nccl-tests importer (an nccl-tests output file). One BenchResult is one case run once:
// a collective over a size sweep, a P2P copy matrix, or the bucketed all-reduce repro.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace commdx {

// One size of one collective, one buffer placement (out-of-place or in-place).
// Times are the slowest rank's median; p10/p90 are that rank's spread.
struct BenchPoint {
  double time_us = 0;  // median (nccl-tests: mean) time of one operation
  double p10_us = 0;   // 0 when unknown (nccl-tests prints only one time)
  double p90_us = 0;
  double algbw_gbps = 0;  // bytes / time, decimal GB/s
  double busbw_gbps = 0;  // algbw x the collective's bus factor
  int64_t wrong = -1;     // wrong elements after the correctness run; -1 = not checked (N/A)
  int iterations = 0;     // timed iterations per rank (0 = unknown)
  int slowest_rank = -1;  // rank whose median was largest (-1 = unknown)
  bool valid = false;     // false when this placement was not run
  // nccl-tests -I (per-iteration timing): the 99th percentile; 0 = unknown. Last, so positional
  // initialisers of the fields above keep their meaning.
  double p99_us = 0;
  // Older nccl-tests (before the #wrong count): the "error" column, the largest deviation of a
  // result from the expected value; -1 = not printed. Over the type's tolerance it is a wrong
  // result (analysis/bench_wrong_results.cc).
  double max_error = -1;
};

struct BenchRow {
  uint64_t bytes = 0;  // nccl-tests "size": total bytes of the operation as nccl-tests counts them
  uint64_t count = 0;  // nccl-tests "count": elements per rank parameter
  std::string dtype;   // "float", "bfloat16", ...
  std::string redop;   // "sum", "none", ...
  int root = -1;
  BenchPoint out_of_place;
  BenchPoint in_place;
  SourceLoc loc;  // line in an ingested file
};

// The link between the benchmarked GPUs, as CUDA peer access and NVML see it (or guessed from
// the GPU's name for an nccl-tests file).
enum class BenchLink : uint8_t { kUnknown, kNvLink, kPcie, kHost };
const char* BenchLinkName(BenchLink l);  // "" | "nvlink" | "pcie" | "host"

// Who measured a result: commdx's own benchmark, or an nccl-tests output that was read.
enum class BenchSource : uint8_t { kCommdx, kNcclTests };
const char* BenchSourceName(BenchSource s);  // "commdx" | "nccl-tests"

// Link facts the expectation is computed from (live: CUDA/NVML; ingested: GPU name only).
struct BenchTopology {
  std::string gpu_name;   // "NVIDIA H200"
  int compute_major = 0;  // compute capability, 0 = unknown
  int compute_minor = 0;
  BenchLink link = BenchLink::kUnknown;
  int nvlink_version = 0;   // NVML NVLink version (4 = H100/H200), 0 = unknown
  int nvlinks_per_gpu = 0;  // active links on the GPU with the fewest, 0 = unknown
  int pcie_gen = 0;
  int pcie_width = 0;
  int nodes = 1;  // 0 = unknown (an nccl-tests excerpt without its "Rank N ... on HOST" lines)
  bool guessed = false;  // inferred from the GPU name only
};

// One directed GPU pair, one copy method (copy engine or SM kernel), one direction mode.
struct P2pResult {
  int src = 0;
  int dst = 0;
  std::string method;  // "ce" (cudaMemcpyPeerAsync) | "sm" (copy kernel)
  bool bidirectional = false;
  uint64_t bytes = 0;         // per direction per iteration
  double bandwidth_gbps = 0;  // per direction (bidirectional: each direction's)
  double latency_us = 0;      // median time of a small copy
  double p10_gbps = 0, p90_gbps = 0;
  std::string waived;  // non-empty: not run, and why
};

// One bucket size of the minimal repro: compute of fixed duration + bucketed all_reduce.
struct ReproPoint {
  uint64_t bucket_bytes = 0;
  int buckets = 0;
  double step_overlap_us = 0;  // all_reduce of each bucket as soon as its gradients are ready
  double step_serial_us = 0;   // all buckets after the whole backward
  double compute_only_us = 0;  // no communication
  double comm_only_us = 0;     // the buckets alone
};

// The GPU one rank of a live run drove, as that rank saw it (gathered from every rank once the
// communicator is up): two ranks with one UUID share one physical GPU, whatever their hosts say.
struct BenchRankGpu {
  int rank = 0;
  std::string uuid;    // "GPU-6e1c5a7e-...", empty when unknown
  std::string bus_id;  // "0000:18:00.0"
  std::string host;    // host name of the rank's process
};

// How many hosts the ranks ran on (distinct non-empty host names); 0 when none is known.
int HostCount(const std::vector<BenchRankGpu>& gpus);
// Two ranks reported the same GPU UUID (whatever their hosts say): they took turns on one GPU.
bool AnyGpuShared(const std::vector<BenchRankGpu>& gpus);

// A failure nccl-tests printed, where the run stopped: "HOST: Test NCCL failure common.cu:1204
// 'unhandled cuda error ...'", "Test CUDA failure common.cu:1045 'CUDA driver version is
// insufficient ...'".
struct BenchFailure {
  std::string library;  // "NCCL" or "CUDA": whose call failed
  std::string message;  // the quoted error text
  std::string host;     // the host that printed it; "" when the line does not say
  SourceLoc loc;
};

struct BenchResult {
  std::string case_key;  // bench case: "p2p", "repro", or a CollectiveTypeName ("all_reduce")
  BenchSource source = BenchSource::kCommdx;
  std::string file;          // ingested file path (empty when live)
  std::string tool_version;  // nccl-tests version, or commdx version
  std::string nccl_version;  // "2.28.9"
  std::string nccl_library;  // path of the libnccl that was loaded (live)
  std::string launch;        // "single_process" | "torchrun" | "mpi" | "nccl-tests"
  int nranks = 0;
  bool cuda_graph = false;
  int gpus_per_thread = 0;  // nccl-tests "nGpus": GPUs one thread drives in turn (0 = unknown)
  int event_stride = 1;  // plain launches: iterations per timing event (live commdx runs)
  BenchTopology topology;
  std::vector<BenchRow> rows;
  std::optional<double> reported_avg_busbw_gbps;  // nccl-tests "# Avg bus bandwidth" (a mean)
  std::optional<int64_t> reported_out_of_bounds;  // nccl-tests "# Out of bounds values"
  // nccl-tests "# Avg bus bandwidth" lines of this table: one process prints one per run, so
  // more than one (no header between) is several processes' runs written into one output.
  int summaries = 0;
  // nccl-tests: the output ends inside its device list (a host lists fewer GPUs than another):
  // the file was cut there, so a missing table says nothing about the run.
  bool header_cut = false;
  std::vector<P2pResult> p2p;
  std::vector<ReproPoint> repro;
  double repro_grad_bytes = 0;
  double repro_compute_us = 0;
  double wall_s = 0;                    // wall time of the whole case (live)
  std::vector<BenchRankGpu> rank_gpus;  // live runs: every rank's GPU (empty when unknown)
  std::vector<std::string> notes;       // waivers and caveats, one sentence each
  std::vector<BenchFailure> failures;   // nccl-tests: the failures it printed (the run stopped)
};

}  // namespace commdx
