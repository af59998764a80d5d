// bench::Backend: the narrow interface between the benchmark logic (sweeps, adaptive
// iteration counts, statistics, watchdog) and the machine. The real backend drives CUDA and a
// dlopen'ed NCCL; the fake backend models a link so everything above runs without a GPU.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "bench/types.h"
#include "model/bench_result.h"

namespace commdx::bench {

class Watchdog;

struct RankInfo {
  int rank = 0;        // global rank
  int cuda_dev = 0;    // device ordinal in its process
  std::string name;    // "NVIDIA H200"
  std::string bus_id;  // "0000:00:06.0"
  uint64_t mem_bytes = 0;
  std::string uuid;  // "GPU-6e1c5a7e-..." (cudaDeviceProp::uuid)
};

struct BackendInfo {
  std::string kind;          // "cuda" | "fake"
  std::string nccl_library;  // path of the loaded libnccl
  std::string nccl_version;  // "2.28.9"
  int nccl_version_code = 0;
  std::string cuda_runtime;               // "13.0" (static runtime)
  std::string cuda_driver;                // "13.0"
  std::string launch = "single_process";  // | "torchrun" | "mpi"
  int world_size = 1;
  int first_local_rank = 0;     // global rank of this process's first device
  int local_ranks = 1;          // ranks driven by this process
  bool reports = true;          // this process prints the report (rank 0 of the job)
  bool sm_kernels = false;      // nvcc-built kernels available (SM copy, device-side check)
  int event_stride = 1;         // iterations per timing event in plain launches
  bool gated = false;           // batches are queued behind a gate kernel, then released
  int max_batch = 0;            // most iterations one Time() call takes (0 = no limit)
  std::vector<RankInfo> ranks;  // this process's ranks
  std::vector<BenchRankGpu> rank_gpus;  // every rank of the job, filled by Connect()
  BenchTopology topology;
};

// Per-iteration times of one batch, ns: times[global rank][iteration]. Every process gets the
// whole matrix (multi-process backends exchange it), so decisions taken from it agree.
using TimeMatrix = std::vector<std::vector<double>>;

struct CopySpec {
  int src = 0;
  int dst = 0;
  bool sm = false;             // SM copy kernel instead of the copy engine
  bool bidirectional = false;  // dst->src at the same time
  uint64_t bytes = 0;
};

struct ReproSpec {
  uint64_t grad_bytes = 0;  // total gradient bytes per rank
  uint64_t bucket_bytes = 0;
  double compute_us = 0;  // backward compute per step
  enum Mode { kOverlap, kSerial, kComputeOnly, kCommOnly } mode = kOverlap;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const BackendInfo& Info() const = 0;

  // Gives the backend the watchdog to beat while it waits (may be null).
  void SetWatchdog(Watchdog* watchdog) { watchdog_ = watchdog; }

  // Creates the communicators (may wait for peers: call with the watchdog armed), then learns
  // every rank's GPU (Info().rank_gpus).
  virtual Status Connect() = 0;

  // Makes room for the largest operation: bytes per local rank for send and receive buffers.
  virtual Status Reserve(uint64_t send_bytes, uint64_t recv_bytes) = 0;
  // Fills inputs with the pattern (pattern.h) and poisons outputs.
  virtual Status Prepare(const CollSpec& spec, uint64_t seed) = 0;
  // Runs `iters` back-to-back operations and returns their times (graph: captured and replayed).
  virtual Result<TimeMatrix> Time(const CollSpec& spec, int iters, bool graph) = 0;
  // Wrong output elements per global rank after the last operation (-1: not checked).
  virtual Result<std::vector<int64_t>> Check(const CollSpec& spec, uint64_t seed) = 0;

  // P2P copy between two local devices; times per iteration, ns (index 0: src->dst,
  // index 1: dst->src when bidirectional).
  virtual Result<TimeMatrix> TimeCopy(const CopySpec& spec, int iters) = 0;
  // One repro step per iteration; times per iteration, ns, slowest rank.
  virtual Result<TimeMatrix> TimeRepro(const ReproSpec& spec, int iters) = 0;
  // `iters` times the whole sequence, in order, back to back (bench replay). Times per call,
  // ns: row r holds rank r's calls, iteration k's call c at k * seq.size() + c. Buffers must
  // have been reserved for the largest call.
  virtual Result<TimeMatrix> TimeSequence(const std::vector<CollSpec>& seq, int iters) = 0;

  // Runs what follows on sub-communicators of `size` ranks side by side (ncclCommSplit), as a
  // job's groups of `size` ranks `stride` apart run: global rank r joins the ranks that share
  // r / (size * stride) and r % stride, as rank (r % (size * stride)) / stride. size 0 (or the
  // world size) returns to one communicator of every rank. The world size must be a multiple of
  // size * stride. Specs then carry nranks = size; time matrices keep one row per global rank.
  virtual Status UseGroup(int size, int stride) = 0;

  // Called from the watchdog thread: which ranks are stuck, then abort every communicator.
  virtual std::string DescribeStuck() = 0;
  virtual void Abort() = 0;

 protected:
  Watchdog* watchdog_ = nullptr;
};

}  // namespace commdx::bench
