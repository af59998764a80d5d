// The real backend: CUDA runtime (linked statically) and NCCL (dlopen'ed, nccl_lib.h).
// Single process: one communicator per local GPU from ncclCommInitAll, every operation issued
// for all of them inside one ncclGroupStart/End. One process per GPU: the NCCL id comes from
// rank 0 over TCP (tcp_exchange.h), ncclCommInitRank, and per-iteration times are all-gathered
// through NCCL so every process holds the whole TimeMatrix.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "bench/backend.h"
#include "bench/create_backend.h"
#include "bench/cuda/nccl_lib.h"
#include "bench/pattern.h"

namespace commdx::bench {

// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi -L prints it (cuda_identity.cc).
std::string CudaUuidText(const cudaUUID_t& uuid);

class CudaBackend final : public Backend {
 public:
  ~CudaBackend() override;
  static Result<std::unique_ptr<Backend>> Make(const BackendOptions& options);

  const BackendInfo& Info() const override { return info_; }
  Status Connect() override;
  Status Reserve(uint64_t send_bytes, uint64_t recv_bytes) override;
  Status Prepare(const CollSpec& spec, uint64_t seed) override;
  Result<TimeMatrix> Time(const CollSpec& spec, int iters, bool graph) override;
  Result<std::vector<int64_t>> Check(const CollSpec& spec, uint64_t seed) override;
  Result<TimeMatrix> TimeCopy(const CopySpec& spec, int iters) override;
  Result<TimeMatrix> TimeRepro(const ReproSpec& spec, int iters) override;
  Result<TimeMatrix> TimeSequence(const std::vector<CollSpec>& seq, int iters) override;
  Status UseGroup(int size, int stride) override;  // cuda_groups.cc
  std::string DescribeStuck() override;
  void Abort() override;

 private:
  struct Dev {
    int global = 0;
    int dev = 0;
    int sm_count = 1;
    cudaStream_t stream = nullptr;   // collectives, copies, compute
    cudaStream_t stream2 = nullptr;  // repro communication
    ncclComm_t comm = nullptr;       // what collectives run on: `world`, or `sub` (UseGroup)
    ncclComm_t world = nullptr;      // every rank of the job (and the results' exchange)
    ncclComm_t sub = nullptr;        // the last UseGroup's split, kept until another is asked for
    int rank = 0;                    // this device's rank in `comm`
    char* send = nullptr;
    char* recv = nullptr;
    uint64_t send_cap = 0;
    uint64_t recv_cap = 0;
    std::vector<cudaEvent_t> ev;   // per-iteration boundaries on `stream`
    std::vector<cudaEvent_t> ev2;  // repro step ends
    std::vector<cudaEvent_t> seg;  // repro bucket-ready events
    unsigned long long* d_count = nullptr;
    double* d_xchg = nullptr;  // multi-process exchange buffer
    uint64_t xchg_cap = 0;     // doubles
    cudaGraphExec_t graph = nullptr;
  };
  // Events to wait for: events[first..last] of device `dev`, in order.
  struct WaitItem {
    size_t dev;
    std::vector<cudaEvent_t>* events;
    int first;
    int last;
  };

  CudaBackend() = default;
  Status Init(const BackendOptions& options);
  Status Alloc(Dev& d, char** ptr, uint64_t bytes, const char* what);
  Status EnsureEvents(std::vector<cudaEvent_t>& list, Dev& d, size_t n);
  Status LaunchColl(const CollSpec& spec);
  Status Capture(const CollSpec& spec, int iters);
  void DropGraphs();
  Status Wait(const std::vector<WaitItem>& items);
  Status CheckAsyncErrors();
  // Per-iteration times of the waited devices: ev[k] -> ev[k+1], or ev[k] -> (*ends)[k].
  Result<TimeMatrix> Elapsed(const std::vector<WaitItem>& items, int iters,
                             std::vector<cudaEvent_t> Dev::*ends = nullptr);
  Result<TimeMatrix> Gather(const TimeMatrix& local);
  // Fills info_.rank_gpus (cuda_identity.cc): local devices, or all-gathered across processes.
  Status LearnRankGpus();
  Status Fill(Dev& d, void* ptr, uint64_t elems, const pattern::Params& p, int value_rank);
  Result<int64_t> CountWrong(Dev& d, const void* ptr, uint64_t elems, const pattern::Params& p);
  char* OutputPtr(const Dev& d, const CollSpec& spec) const;

  std::unique_ptr<NcclLib> nccl_;
  BackendInfo info_;
  LaunchEnv launch_;
  double connect_timeout_s_ = 120;
  int event_stride_ = 1;
  int fault_skip_rank_ = -1;
  unsigned* gate_ = nullptr;  // host-mapped ticket the gate kernels wait for
  unsigned gate_ticket_ = 0;
  // The first batch of an operation runs ungated: NCCL connects lazily inside that first
  // launch and waits on work that a closed gate would hold back.
  CollSpec last_spec_;
  bool have_last_spec_ = false;
  int prepared_ = 0;  // Prepare calls so far (the fault starts after the first point)
  std::vector<Dev> devs_;
  std::atomic<bool> aborting_{false};  // Abort() started
  std::atomic<bool> aborted_{false};   // Abort() finished: communicators are gone
  std::mutex wait_mu_;
  std::vector<WaitItem> waiting_;  // what the main thread waits for (DescribeStuck reads it)
  // The spec and batch size the current graphs were captured for.
  CollSpec graph_spec_;
  int graph_iters_ = 0;
  // The split `sub` communicators were made for (UseGroup); 0: none.
  int sub_size_ = 0;
  int sub_stride_ = 0;
};

}  // namespace commdx::bench
