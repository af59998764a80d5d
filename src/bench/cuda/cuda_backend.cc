// CudaBackend: creation, communicators, buffers, waiting (with the watchdog), exchange, abort.
// Collectives are in cuda_coll.cc, copies and the repro step in cuda_copy_repro.cc.
#include "bench/cuda/cuda_backend.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

#include "base/text.h"
#include "bench/cuda/cuda_util.h"
#include "bench/cuda/kernels.h"
#include "bench/cuda/link_query.h"
#include "bench/tcp_exchange.h"
#include "bench/watchdog.h"
#include "model/cuda_version.h"

namespace commdx::bench {

Result<std::unique_ptr<Backend>> CreateCudaBackend(const BackendOptions& options) {
  return CudaBackend::Make(options);
}

Result<std::unique_ptr<Backend>> CudaBackend::Make(const BackendOptions& options) {
  std::unique_ptr<CudaBackend> b(new CudaBackend());
  COMMDX_TRY(b->Init(options));
  return std::unique_ptr<Backend>(std::move(b));
}

Status CudaBackend::Init(const BackendOptions& o) {
  launch_ = o.launch;
  connect_timeout_s_ = o.connect_timeout_s;
  event_stride_ = std::max(1, o.event_stride);
  info_.event_stride = event_stride_;
  fault_skip_rank_ = o.fault_skip_rank;
  // No driver: say so without starting the CUDA runtime at all (nothing to clean up after).
  void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!driver)
    return MakeError(ErrorCode::kEnvironment,
                     "no NVIDIA driver on this machine (libcuda.so.1 cannot be loaded), so no GPU "
                     "to benchmark");
  dlclose(driver);
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0)
    return MakeError(ErrorCode::kEnvironment,
                     std::string("no usable CUDA GPU: ") +
                         (e != cudaSuccess ? cudaGetErrorString(e) : "cudaGetDeviceCount found 0") +
                         " (check the NVIDIA driver and CUDA_VISIBLE_DEVICES)");
  std::vector<int> ordinals;
  if (launch_.multi_process()) {
    if (launch_.local_rank >= count)
      return MakeError(ErrorCode::kEnvironment, "LOCAL_RANK " + std::to_string(launch_.local_rank) +
                                                    " but only " + std::to_string(count) +
                                                    " GPU(s) are visible to this process");
    ordinals.push_back(launch_.local_rank);
    info_.launch = launch_.mode;
    info_.world_size = launch_.world_size;
    info_.first_local_rank = launch_.rank;
    info_.reports = launch_.rank == 0;
  } else {
    int n = o.ngpus > 0 ? std::min(o.ngpus, count) : count;
    if (o.ngpus > count)
      return MakeError(ErrorCode::kEnvironment, "-g " + std::to_string(o.ngpus) + " GPUs asked, " +
                                                    std::to_string(count) + " visible");
    for (int i = 0; i < n; ++i) ordinals.push_back(i);
    info_.world_size = n;
  }
  info_.local_ranks = static_cast<int>(ordinals.size());
  for (size_t i = 0; i < ordinals.size(); ++i) {
    Dev d;
    d.dev = ordinals[i];
    d.global = info_.first_local_rank + static_cast<int>(i);
    d.rank = d.global;
    COMMDX_CUDA(cudaSetDevice(d.dev));
    cudaDeviceProp prop{};
    COMMDX_CUDA(cudaGetDeviceProperties(&prop, d.dev));
    d.sm_count = prop.multiProcessorCount;
    COMMDX_CUDA(cudaStreamCreateWithFlags(&d.stream, cudaStreamNonBlocking));
    COMMDX_CUDA(cudaStreamCreateWithFlags(&d.stream2, cudaStreamNonBlocking));
    COMMDX_CUDA(cudaMalloc(&d.d_count, sizeof(unsigned long long)));
    char bus[32] = {0};
    cudaDeviceGetPCIBusId(bus, sizeof bus, d.dev);
    info_.ranks.push_back(
        {d.global, d.dev, prop.name, ToLower(bus), prop.totalGlobalMem, CudaUuidText(prop.uuid)});
    devs_.push_back(d);
  }
  for (auto& a : devs_)  // copy engines and SM kernels write straight into the peer
    for (auto& b : devs_) {
      int can = 0;
      if (a.dev == b.dev || cudaDeviceCanAccessPeer(&can, a.dev, b.dev) != cudaSuccess || !can)
        continue;
      cudaSetDevice(a.dev);
      if (cudaDeviceEnablePeerAccess(b.dev, 0) != cudaSuccess) cudaGetLastError();
    }
  int rt = 0, drv = 0;
  cudaRuntimeGetVersion(&rt);
  cudaDriverGetVersion(&drv);
  info_.kind = "cuda";
  info_.cuda_runtime = CudaVersionString(rt);
  info_.cuda_driver = CudaVersionString(drv);
  info_.sm_kernels = kernels::Available();
  if (o.gate && info_.sm_kernels &&
      cudaHostAlloc(&gate_, sizeof(unsigned), cudaHostAllocMapped | cudaHostAllocPortable) ==
          cudaSuccess) {
    *gate_ = 0;
    info_.gated = true;
    info_.max_batch = 128;  // queued launches must fit the stream's queue while gated
  }
  info_.topology = QueryTopology(ordinals);
  auto lib = NcclLib::Load(o.nccl_lib);
  if (!lib) return std::move(lib).error();
  nccl_ = std::move(lib).value();
  info_.nccl_library = nccl_->path() + " (" + nccl_->found_by() + ")";
  info_.nccl_version = nccl_->version();
  info_.nccl_version_code = nccl_->version_code();
  return Ok{};
}

Status CudaBackend::Connect() {
  const NcclApi& api = nccl_->api();
  if (!launch_.multi_process()) {
    std::vector<ncclComm_t> comms(devs_.size());
    std::vector<int> list;
    for (auto& d : devs_) list.push_back(d.dev);
    ncclResult_t r = api.CommInitAll(comms.data(), static_cast<int>(list.size()), list.data());
    if (r != ncclSuccess)
      return MakeError(ErrorCode::kEnvironment, nccl_->Describe("ncclCommInitAll", r));
    for (size_t i = 0; i < devs_.size(); ++i) devs_[i].comm = devs_[i].world = comms[i];
    return LearnRankGpus();
  }
  ncclUniqueId id;
  std::memset(&id, 0, sizeof id);
  if (launch_.rank == 0) {
    ncclResult_t r = api.GetUniqueId(&id);
    if (r != ncclSuccess)
      return MakeError(ErrorCode::kEnvironment, nccl_->Describe("ncclGetUniqueId", r));
  }
  std::string blob(reinterpret_cast<const char*>(&id), sizeof id);
  COMMDX_ASSIGN_OR_RETURN(std::string got, ExchangeBlob(launch_, blob, connect_timeout_s_));
  if (got.size() != sizeof id)
    return MakeError(ErrorCode::kEnvironment, "rank 0 sent an NCCL id of the wrong size");
  std::memcpy(&id, got.data(), sizeof id);
  if (watchdog_) watchdog_->Arm("NCCL communicator init (ncclCommInitRank)");
  Dev& d = devs_[0];
  COMMDX_CUDA(cudaSetDevice(d.dev));
  ncclResult_t r = api.CommInitRank(&d.world, launch_.world_size, id, launch_.rank);
  d.comm = d.world;
  if (r != ncclSuccess)
    return MakeError(ErrorCode::kEnvironment, nccl_->Describe("ncclCommInitRank", r) + " on rank " +
                                                  std::to_string(launch_.rank));
  return LearnRankGpus();
}

CudaBackend::~CudaBackend() {
  DropGraphs();
  for (auto& d : devs_) {
    cudaSetDevice(d.dev);
    if (!aborting_) cudaStreamSynchronize(d.stream);
    if (!aborting_ && nccl_)
      for (ncclComm_t c : {d.sub, d.world})
        if (c) nccl_->api().CommDestroy(c);
    for (auto* list : {&d.ev, &d.ev2, &d.seg})
      for (cudaEvent_t ev : *list) cudaEventDestroy(ev);
    cudaFree(d.send);
    cudaFree(d.recv);
    cudaFree(d.d_count);
    cudaFree(d.d_xchg);
    if (d.stream) cudaStreamDestroy(d.stream);
    if (d.stream2) cudaStreamDestroy(d.stream2);
  }
  if (gate_) cudaFreeHost(gate_);
}

Status CudaBackend::Alloc(Dev& d, char** ptr, uint64_t bytes, const char* what) {
  cudaSetDevice(d.dev);
  if (*ptr) cudaFree(*ptr);
  *ptr = nullptr;
  cudaError_t e = cudaMalloc(reinterpret_cast<void**>(ptr), std::max<uint64_t>(bytes, 64));
  if (e == cudaSuccess) return Ok{};
  cudaGetLastError();
  size_t free_b = 0, total_b = 0;
  cudaMemGetInfo(&free_b, &total_b);
  return MakeError(
      ErrorCode::kEnvironment,
      "CUDA out of memory on GPU " + std::to_string(d.dev) + " (rank " + std::to_string(d.global) +
          "): the " + what + " buffer needs " + FormatBytes(static_cast<double>(bytes)) + ", " +
          FormatBytes(static_cast<double>(free_b)) + " free of " +
          FormatBytes(static_cast<double>(total_b)) + "; lower -e/--maxbytes (or free the GPU)");
}

Status CudaBackend::Reserve(uint64_t send_bytes, uint64_t recv_bytes) {
  for (auto& d : devs_) {
    if (d.send_cap < send_bytes) {
      COMMDX_TRY(Alloc(d, &d.send, send_bytes, "send"));
      d.send_cap = send_bytes;
    }
    if (d.recv_cap < recv_bytes) {
      COMMDX_TRY(Alloc(d, &d.recv, recv_bytes, "receive"));
      d.recv_cap = recv_bytes;
    }
  }
  return Ok{};
}

Status CudaBackend::EnsureEvents(std::vector<cudaEvent_t>& list, Dev& d, size_t n) {
  if (list.size() >= n) return Ok{};
  COMMDX_CUDA(cudaSetDevice(d.dev));
  while (list.size() < n) {
    cudaEvent_t ev;
    COMMDX_CUDA(cudaEventCreate(&ev));
    list.push_back(ev);
  }
  return Ok{};
}

Status CudaBackend::CheckAsyncErrors() {
  for (auto& d : devs_)
    for (ncclComm_t c : {d.world, d.sub}) {
      if (!c) continue;
      ncclResult_t async = ncclSuccess;
      nccl_->api().CommGetAsyncError(c, &async);
      if (async != ncclSuccess && async != ncclInProgress) {
        std::string msg = nccl_->Describe("an NCCL operation", async, c) + " (rank " +
                          std::to_string(d.global) + ", GPU " + std::to_string(d.dev) + ")";
        Abort();  // on this thread: returns once the communicators are aborted
        return MakeError(ErrorCode::kEnvironment, msg);
      }
    }
  return Ok{};
}

Status CudaBackend::Wait(const std::vector<WaitItem>& items) {
  {
    std::lock_guard<std::mutex> lock(wait_mu_);
    waiting_ = items;
  }
  std::vector<int> next(items.size());
  for (size_t i = 0; i < items.size(); ++i) next[i] = items[i].first;
  auto start = std::chrono::steady_clock::now();
  auto last_check = start;
  int idle_polls = 0;
  Status result = Ok{};
  while (true) {
    bool done = true, progressed = false;
    for (size_t i = 0; i < items.size() && result; ++i) {
      const WaitItem& w = items[i];
      while (next[i] <= w.last) {
        cudaError_t q = cudaEventQuery((*w.events)[static_cast<size_t>(next[i])]);
        if (q == cudaErrorNotReady) break;
        if (q != cudaSuccess) {
          result = CudaError("cudaEventQuery", q, __FILE__, __LINE__, devs_[w.dev].dev);
          break;
        }
        ++next[i];
        progressed = true;
      }
      if (next[i] <= w.last) done = false;
    }
    if (!result || done) break;
    if (progressed && watchdog_) watchdog_->Beat();
    if (aborted_) {
      if (watchdog_) watchdog_->Acknowledge();
      result = MakeError(ErrorCode::kEnvironment, watchdog_ && watchdog_->fired()
                                                      ? watchdog_->message()
                                                      : std::string("communicators aborted"));
      break;
    }
    auto now = std::chrono::steady_clock::now();
    if (now - last_check > std::chrono::milliseconds(100)) {
      last_check = now;
      if (Status s = CheckAsyncErrors(); !s) {
        result = s;
        break;
      }
    }
    // Spin briefly (short operations), then sleep so the CPU stays free for NCCL's threads.
    if (++idle_polls > 200) std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  std::lock_guard<std::mutex> lock(wait_mu_);
  waiting_.clear();
  return result;
}

Result<TimeMatrix> CudaBackend::Elapsed(const std::vector<WaitItem>& items, int iters,
                                        std::vector<cudaEvent_t> Dev::*ends) {
  TimeMatrix local;
  for (const auto& w : items) {
    Dev& d = devs_[w.dev];
    std::vector<double> row;
    row.reserve(static_cast<size_t>(iters));
    for (int k = 0; k < iters; ++k) {
      float ms = 0;
      cudaEvent_t a = d.ev[static_cast<size_t>(k)];
      cudaEvent_t b = ends ? (d.*ends)[static_cast<size_t>(k)] : d.ev[static_cast<size_t>(k) + 1];
      COMMDX_CUDA(cudaEventElapsedTime(&ms, a, b));
      row.push_back(static_cast<double>(ms) * 1e6);
    }
    local.push_back(std::move(row));
  }
  return local;
}

Result<TimeMatrix> CudaBackend::Gather(const TimeMatrix& local) {
  if (!launch_.multi_process()) return local;
  Dev& d = devs_[0];
  uint64_t n = local.empty() ? 0 : local[0].size();
  uint64_t world = static_cast<uint64_t>(launch_.world_size);
  uint64_t need = n * (world + 1);
  if (d.xchg_cap < need) {
    COMMDX_CUDA(cudaSetDevice(d.dev));
    cudaFree(d.d_xchg);
    d.d_xchg = nullptr;
    COMMDX_CUDA(cudaMalloc(&d.d_xchg, std::max<uint64_t>(need, 16) * sizeof(double)));
    d.xchg_cap = need;
  }
  COMMDX_CUDA(cudaMemcpyAsync(d.d_xchg, local[0].data(), n * sizeof(double), cudaMemcpyHostToDevice,
                              d.stream));
  ncclResult_t r =
      nccl_->api().AllGather(d.d_xchg, d.d_xchg + n, n, ncclFloat64, d.world, d.stream);
  if (r != ncclSuccess)
    return MakeError(ErrorCode::kEnvironment,
                     nccl_->Describe("ncclAllGather (results)", r, d.world));
  COMMDX_TRY(EnsureEvents(d.ev, d, 2));
  COMMDX_CUDA(cudaEventRecord(d.ev[1], d.stream));
  COMMDX_TRY(Wait({{0, &d.ev, 1, 1}}));
  std::vector<double> all(n * world);
  COMMDX_CUDA(
      cudaMemcpy(all.data(), d.d_xchg + n, all.size() * sizeof(double), cudaMemcpyDeviceToHost));
  TimeMatrix out(world);
  for (uint64_t r2 = 0; r2 < world; ++r2)
    out[r2].assign(all.begin() + static_cast<int64_t>(r2 * n),
                   all.begin() + static_cast<int64_t>((r2 + 1) * n));
  return out;
}

std::string CudaBackend::DescribeStuck() {
  std::lock_guard<std::mutex> lock(wait_mu_);
  std::string out;
  for (const auto& w : waiting_) {
    const Dev& d = devs_[w.dev];
    cudaEvent_t last = (*w.events)[static_cast<size_t>(w.last)];
    if (cudaEventQuery(last) != cudaErrorNotReady) continue;
    if (!out.empty()) out += ", ";
    out += "rank " + std::to_string(d.global) + " (GPU " + std::to_string(d.dev) + ", pid " +
           std::to_string(getpid()) + ")";
  }
  if (launch_.multi_process() && !out.empty())
    out += "; the other ranks run in other processes: look for the one that exited or hung";
  return out;
}

void CudaBackend::Abort() {
  if (aborting_.exchange(true)) return;
  if (gate_) __atomic_store_n(gate_, 0xffffffffu, __ATOMIC_SEQ_CST);  // open every gate
  for (auto& d : devs_)
    for (ncclComm_t c : {d.sub, d.world})
      if (c) nccl_->api().CommAbort(c);
  // Only now may the waiting thread return (and destroy this backend); if an abort never
  // returns, the watchdog's hard exit ends the process instead.
  aborted_ = true;
}

}  // namespace commdx::bench
