// CudaBackend: the collectives — buffer placement (nccl-tests' in-place layout), fill, launch,
// per-iteration events, optional CUDA graph, and the correctness check.
#include <algorithm>
#include <vector>

#include "bench/cuda/cuda_backend.h"
#include "bench/cuda/cuda_util.h"
#include "bench/cuda/kernels.h"
#include "bench/event_groups.h"
#include "bench/host_codec.h"

namespace commdx::bench {

namespace {

pattern::Coll PatternColl(CollectiveType kind) {
  switch (kind) {
    case CollectiveType::kAllGather:
      return pattern::kAllGather;
    case CollectiveType::kReduceScatter:
      return pattern::kReduceScatter;
    case CollectiveType::kBroadcast:
      return pattern::kBroadcast;
    case CollectiveType::kReduce:
      return pattern::kReduce;
    case CollectiveType::kAllToAll:
      return pattern::kAllToAll;
    case CollectiveType::kSendRecv:
      return pattern::kSendRecv;
    default:
      return pattern::kAllReduce;  // bench runs only the kinds above and all_reduce
  }
}

pattern::Params ParamsFor(const CollSpec& spec, int rank, uint64_t seed) {
  pattern::Params p{};
  p.coll = PatternColl(spec.kind);
  p.op = static_cast<int>(spec.op);
  p.dtype = static_cast<int>(spec.dtype);
  p.nranks = spec.nranks;
  p.rank = rank;
  p.root = spec.root;
  p.shift = spec.shift;
  p.count = spec.count;
  p.seed = seed;
  return p;
}

// The pattern repeats every 20 elements (pattern.h: periods 5 and 4), so the host fallback
// writes one block and doubles it on the device.
constexpr uint64_t kPeriod = 20;
constexpr uint64_t kHostBlockElems = kPeriod * 65536;
constexpr uint64_t kSampleElems = 1 << 20;

}  // namespace

Status CudaBackend::Fill(Dev& d, void* ptr, uint64_t elems, const pattern::Params& p,
                         int value_rank) {
  if (elems == 0) return Ok{};
  COMMDX_CUDA(cudaSetDevice(d.dev));
  if (kernels::Available()) {
    COMMDX_CUDA(kernels::Fill(ptr, elems, p, value_rank, d.stream));
    return Ok{};
  }
  auto type = static_cast<DataType>(p.dtype);
  size_t ts = DataTypeBytes(type);
  uint64_t block = std::min(elems, kHostBlockElems);
  std::vector<char> host(block * ts);
  for (uint64_t i = 0; i < block; ++i)
    EncodeValue(pattern::InputValue(p, value_rank, i), type, host.data() + i * ts);
  char* dst = static_cast<char*>(ptr);
  COMMDX_CUDA(cudaMemcpyAsync(dst, host.data(), block * ts, cudaMemcpyHostToDevice, d.stream));
  for (uint64_t done = block; done < elems;) {
    uint64_t n = std::min(done, elems - done);
    COMMDX_CUDA(cudaMemcpyAsync(dst + done * ts, dst, n * ts, cudaMemcpyDeviceToDevice, d.stream));
    done += n;
  }
  COMMDX_CUDA(cudaStreamSynchronize(d.stream));
  return Ok{};
}

Result<int64_t> CudaBackend::CountWrong(Dev& d, const void* ptr, uint64_t elems,
                                        const pattern::Params& p) {
  COMMDX_CUDA(cudaSetDevice(d.dev));
  if (kernels::Available()) {
    COMMDX_CUDA(cudaMemsetAsync(d.d_count, 0, sizeof(unsigned long long), d.stream));
    COMMDX_CUDA(kernels::CountWrong(ptr, elems, p, d.d_count, d.stream));
    unsigned long long n = 0;
    COMMDX_CUDA(cudaMemcpyAsync(&n, d.d_count, sizeof n, cudaMemcpyDeviceToHost, d.stream));
    COMMDX_CUDA(cudaStreamSynchronize(d.stream));
    return static_cast<int64_t>(n);
  }
  // Host fallback: three windows (start, middle, end) of at most kSampleElems each.
  auto type = static_cast<DataType>(p.dtype);
  size_t ts = DataTypeBytes(type);
  bool integer = pattern::IsIntegerType(p.dtype);
  int64_t wrong = 0;
  std::vector<char> host;
  uint64_t starts[3] = {0, elems / 2, elems > kSampleElems ? elems - kSampleElems : 0};
  for (uint64_t s : starts) {
    uint64_t n = std::min(kSampleElems, elems - std::min(s, elems));
    host.resize(n * ts);
    COMMDX_CUDA(cudaMemcpy(host.data(), static_cast<const char*>(ptr) + s * ts, n * ts,
                           cudaMemcpyDeviceToHost));
    for (uint64_t i = 0; i < n; ++i) {
      double want = pattern::Expected(p, s + i, integer);
      double diff = DecodeValue(host.data() + i * ts, type) - want;
      if (!(diff <= pattern::Tolerance(p.dtype, want) &&
            -diff <= pattern::Tolerance(p.dtype, want)))
        ++wrong;
    }
    if (elems <= kSampleElems) break;
  }
  return wrong;
}

char* CudaBackend::OutputPtr(const Dev& d, const CollSpec& spec) const {
  if (spec.in_place && spec.kind == CollectiveType::kReduceScatter)
    return d.send + static_cast<uint64_t>(d.rank) * spec.count * DataTypeBytes(spec.dtype);
  return d.recv;
}

Status CudaBackend::Prepare(const CollSpec& spec, uint64_t seed) {
  DropGraphs();
  ++prepared_;
  size_t ts = DataTypeBytes(spec.dtype);
  for (auto& d : devs_) {
    pattern::Params p = ParamsFor(spec, d.rank, seed);
    COMMDX_CUDA(cudaSetDevice(d.dev));
    bool input_in_recv = spec.in_place && spec.kind != CollectiveType::kReduceScatter;
    if (!input_in_recv || spec.kind == CollectiveType::kAllGather)
      COMMDX_CUDA(cudaMemsetAsync(d.recv, 0xff, spec.RecvElems() * ts, d.stream));
    if (!spec.in_place || spec.kind == CollectiveType::kReduceScatter) {
      COMMDX_TRY(Fill(d, d.send, spec.SendElems(), p, d.rank));
    } else if (spec.kind == CollectiveType::kAllGather) {
      COMMDX_TRY(
          Fill(d, d.recv + static_cast<uint64_t>(d.rank) * spec.count * ts, spec.count, p, d.rank));
    } else {
      COMMDX_TRY(Fill(d, d.recv, spec.SendElems(), p, d.rank));
    }
  }
  for (auto& d : devs_) COMMDX_CUDA(cudaStreamSynchronize(d.stream));
  return Ok{};
}

Status CudaBackend::LaunchColl(const CollSpec& spec) {
  const NcclApi& api = nccl_->api();
  auto dt = static_cast<ncclDataType_t>(spec.dtype);
  auto op = static_cast<ncclRedOp_t>(spec.op);
  size_t ts = DataTypeBytes(spec.dtype);
  uint64_t c = spec.count;
  int n = spec.nranks;
  ncclResult_t r = api.GroupStart();
  for (auto& d : devs_) {
    if (r != ncclSuccess) break;
    if (d.global == fault_skip_rank_ && prepared_ > 2) continue;  // connected by then
    char* send = d.send;
    char* recv = d.recv;
    uint64_t g = static_cast<uint64_t>(d.rank);
    if (spec.in_place) {
      if (spec.kind == CollectiveType::kAllGather)
        send = recv + g * c * ts;
      else if (spec.kind == CollectiveType::kReduceScatter)
        recv = send + g * c * ts;
      else
        send = recv;
    }
    switch (spec.kind) {
      case CollectiveType::kAllReduce:
        r = api.AllReduce(send, recv, c, dt, op, d.comm, d.stream);
        break;
      case CollectiveType::kAllGather:
        r = api.AllGather(send, recv, c, dt, d.comm, d.stream);
        break;
      case CollectiveType::kReduceScatter:
        r = api.ReduceScatter(send, recv, c, dt, op, d.comm, d.stream);
        break;
      case CollectiveType::kBroadcast:
        r = api.Broadcast(send, recv, c, dt, spec.root, d.comm, d.stream);
        break;
      case CollectiveType::kReduce:
        r = api.Reduce(send, recv, c, dt, op, spec.root, d.comm, d.stream);
        break;
      case CollectiveType::kAllToAll:
        for (int p = 0; p < n && r == ncclSuccess; ++p) {
          r = api.Send(send + static_cast<uint64_t>(p) * c * ts, c, dt, p, d.comm, d.stream);
          if (r == ncclSuccess)
            r = api.Recv(recv + static_cast<uint64_t>(p) * c * ts, c, dt, p, d.comm, d.stream);
        }
        break;
      case CollectiveType::kSendRecv:
        r = api.Send(send, c, dt, ((d.rank + spec.shift) % n + n) % n, d.comm, d.stream);
        if (r == ncclSuccess)
          r = api.Recv(recv, c, dt, ((d.rank - spec.shift) % n + n) % n, d.comm, d.stream);
        break;
      default:  // not a bench case (gather, scatter, send, recv, barrier, unknown)
        r = ncclInvalidArgument;
        break;
    }
  }
  ncclResult_t end = api.GroupEnd();
  if (r == ncclSuccess) r = end;
  if (r != ncclSuccess && r != ncclInProgress)
    return MakeError(ErrorCode::kEnvironment,
                     nccl_->Describe(("nccl " + spec.Describe()).c_str(), r, devs_[0].comm));
  return Ok{};
}

void CudaBackend::DropGraphs() {
  for (auto& d : devs_)
    if (d.graph) {
      cudaGraphExecDestroy(d.graph);
      d.graph = nullptr;
    }
  graph_iters_ = 0;
}

Status CudaBackend::Capture(const CollSpec& spec, int iters) {
  DropGraphs();
  for (auto& d : devs_)
    COMMDX_CUDA(cudaStreamBeginCapture(d.stream, cudaStreamCaptureModeThreadLocal));
  Status launched = Ok{};
  for (int k = 0; k < iters && launched; ++k) launched = LaunchColl(spec);
  for (auto& d : devs_) {
    cudaGraph_t g = nullptr;
    cudaError_t e = cudaStreamEndCapture(d.stream, &g);
    if (launched && e != cudaSuccess)
      return CudaError("cudaStreamEndCapture", e, __FILE__, __LINE__, d.dev);
    if (g) {
      if (launched) COMMDX_CUDA(cudaGraphInstantiate(&d.graph, g, 0));
      cudaGraphDestroy(g);
    }
  }
  COMMDX_TRY(launched);
  graph_spec_ = spec;
  graph_iters_ = iters;
  return Ok{};
}

Result<TimeMatrix> CudaBackend::Time(const CollSpec& spec, int iters, bool graph) {
  if (aborting_) return MakeError(ErrorCode::kEnvironment, "communicators were aborted");
  for (auto& d : devs_) COMMDX_TRY(EnsureEvents(d.ev, d, static_cast<size_t>(iters) + 1));
  std::vector<WaitItem> items;
  if (graph) {
    // Events around the graph launch: each iteration gets the graph's mean (as nccl-tests -G).
    bool same = graph_iters_ == iters && graph_spec_.kind == spec.kind &&
                graph_spec_.count == spec.count && graph_spec_.in_place == spec.in_place &&
                graph_spec_.dtype == spec.dtype && graph_spec_.op == spec.op &&
                graph_spec_.root == spec.root && graph_spec_.shift == spec.shift;
    if (!same) COMMDX_TRY(Capture(spec, iters));
    for (auto& d : devs_) {
      COMMDX_CUDA(cudaSetDevice(d.dev));
      COMMDX_CUDA(cudaEventRecord(d.ev[0], d.stream));
      COMMDX_CUDA(cudaGraphLaunch(d.graph, d.stream));
      COMMDX_CUDA(cudaEventRecord(d.ev[1], d.stream));
    }
    for (size_t i = 0; i < devs_.size(); ++i) items.push_back({i, &devs_[i].ev, 1, 1});
    COMMDX_TRY(Wait(items));
    TimeMatrix local;
    for (auto& d : devs_) {
      float ms = 0;
      COMMDX_CUDA(cudaEventElapsedTime(&ms, d.ev[0], d.ev[1]));
      local.push_back(std::vector<double>(static_cast<size_t>(iters), ms * 1e6 / iters));
    }
    return Gather(local);
  }
  unsigned ticket = 0;
  bool seen = have_last_spec_ && last_spec_.kind == spec.kind && last_spec_.count == spec.count &&
              last_spec_.dtype == spec.dtype && last_spec_.op == spec.op &&
              last_spec_.root == spec.root && last_spec_.shift == spec.shift &&
              last_spec_.in_place == spec.in_place;
  last_spec_ = spec;
  have_last_spec_ = true;
  if (gate_ && seen) {
    ticket = ++gate_ticket_;
    for (auto& d : devs_) {
      COMMDX_CUDA(cudaSetDevice(d.dev));
      COMMDX_CUDA(kernels::Gate(gate_, ticket, d.stream));
    }
  }
  for (auto& d : devs_) COMMDX_CUDA(cudaEventRecord(d.ev[0], d.stream));
  Status launched = Ok{};
  const int stride = std::min(event_stride_, std::max(iters, 1));
  int recorded =
      0;  // events after ev[0]: one per group of `stride` iterations (the last may be short)
  for (int k = 0; k < iters && launched; ++k) {
    launched = LaunchColl(spec);
    if (!launched || ((k + 1) % stride != 0 && k + 1 != iters)) continue;
    ++recorded;
    for (auto& d : devs_)
      COMMDX_CUDA(cudaEventRecord(d.ev[static_cast<size_t>(recorded)], d.stream));
  }
  if (ticket) __atomic_store_n(gate_, ticket, __ATOMIC_SEQ_CST);  // release the batch
  COMMDX_TRY(launched);
  for (size_t i = 0; i < devs_.size(); ++i) items.push_back({i, &devs_[i].ev, 1, recorded});
  COMMDX_TRY(Wait(items));
  COMMDX_ASSIGN_OR_RETURN(TimeMatrix local, Elapsed(items, recorded));
  if (stride > 1) local = SpreadGroups(local, iters, stride);
  return Gather(local);
}

Result<TimeMatrix> CudaBackend::TimeSequence(const std::vector<CollSpec>& seq, int iters) {
  if (aborting_) return MakeError(ErrorCode::kEnvironment, "communicators were aborted");
  const int calls = iters * static_cast<int>(seq.size());
  if (calls == 0) return TimeMatrix(devs_.size());
  for (auto& d : devs_) COMMDX_TRY(EnsureEvents(d.ev, d, static_cast<size_t>(calls) + 1));
  have_last_spec_ = false;  // the next Time() batch runs ungated
  for (auto& d : devs_) COMMDX_CUDA(cudaEventRecord(d.ev[0], d.stream));
  // An event after every call: each call's time is from the end of the one before it, as the
  // calls of a training step follow each other on one stream.
  int recorded = 0;
  for (int k = 0; k < iters; ++k)
    for (const CollSpec& spec : seq) {
      COMMDX_TRY(LaunchColl(spec));
      ++recorded;
      for (auto& d : devs_)
        COMMDX_CUDA(cudaEventRecord(d.ev[static_cast<size_t>(recorded)], d.stream));
    }
  std::vector<WaitItem> items;
  for (size_t i = 0; i < devs_.size(); ++i) items.push_back({i, &devs_[i].ev, 1, recorded});
  COMMDX_TRY(Wait(items));
  COMMDX_ASSIGN_OR_RETURN(TimeMatrix local, Elapsed(items, recorded));
  return Gather(local);
}

Result<std::vector<int64_t>> CudaBackend::Check(const CollSpec& spec, uint64_t seed) {
  TimeMatrix local;
  for (auto& d : devs_) {
    pattern::Params p = ParamsFor(spec, d.rank, seed);
    double wrong = 0;
    if (pattern::OutputChecked(p)) {
      uint64_t elems = spec.in_place && spec.kind == CollectiveType::kReduceScatter
                           ? spec.count
                           : spec.RecvElems();
      COMMDX_ASSIGN_OR_RETURN(int64_t w, CountWrong(d, OutputPtr(d, spec), elems, p));
      wrong = static_cast<double>(w);
    }
    local.push_back({wrong});
  }
  COMMDX_ASSIGN_OR_RETURN(TimeMatrix all, Gather(local));
  std::vector<int64_t> out;
  for (const auto& r : all) out.push_back(r.empty() ? -1 : static_cast<int64_t>(r[0]));
  return out;
}

}  // namespace commdx::bench
