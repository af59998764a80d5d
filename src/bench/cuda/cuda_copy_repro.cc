// CudaBackend: P2P copies (copy engine, SM kernel) and the repro step (compute + bucketed
// all_reduce on a second stream).
#include <algorithm>

#include "bench/cuda/cuda_backend.h"
#include "bench/cuda/cuda_util.h"
#include "bench/cuda/kernels.h"

namespace commdx::bench {

Result<TimeMatrix> CudaBackend::TimeCopy(const CopySpec& spec, int iters) {
  if (spec.src < 0 || spec.dst < 0 ||
      static_cast<size_t>(std::max(spec.src, spec.dst)) >= devs_.size())
    return MakeError(ErrorCode::kUsage, "p2p: GPU index out of range");
  if (spec.bytes > devs_[0].send_cap || spec.bytes > devs_[0].recv_cap)
    return MakeError(ErrorCode::kInternal, "p2p: buffers not reserved");
  if (spec.sm && !kernels::Available())
    return MakeError(ErrorCode::kEnvironment, "SM copy kernel not built (no nvcc)");
  Dev& s = devs_[static_cast<size_t>(spec.src)];
  Dev& d = devs_[static_cast<size_t>(spec.dst)];
  COMMDX_TRY(EnsureEvents(s.ev, s, static_cast<size_t>(iters) + 1));
  COMMDX_TRY(EnsureEvents(d.ev, d, static_cast<size_t>(iters) + 1));
  struct Leg {
    Dev* from;
    Dev* to;
  };
  std::vector<Leg> legs = {{&s, &d}};
  if (spec.bidirectional) legs.push_back({&d, &s});
  for (auto& l : legs) {
    COMMDX_CUDA(cudaSetDevice(l.from->dev));
    COMMDX_CUDA(cudaEventRecord(l.from->ev[0], l.from->stream));
  }
  for (int k = 0; k < iters; ++k)
    for (auto& l : legs) {
      COMMDX_CUDA(cudaSetDevice(l.from->dev));
      if (spec.sm)
        COMMDX_CUDA(kernels::Copy(l.to->recv, l.from->send, spec.bytes, l.from->sm_count * 2,
                                  l.from->stream));
      else
        COMMDX_CUDA(cudaMemcpyPeerAsync(l.to->recv, l.to->dev, l.from->send, l.from->dev,
                                        spec.bytes, l.from->stream));
      COMMDX_CUDA(cudaEventRecord(l.from->ev[static_cast<size_t>(k) + 1], l.from->stream));
    }
  std::vector<WaitItem> items;
  for (auto& l : legs)
    items.push_back({static_cast<size_t>(l.from - devs_.data()), &l.from->ev, 1, iters});
  COMMDX_TRY(Wait(items));
  return Elapsed(items, iters);
}

Result<TimeMatrix> CudaBackend::TimeRepro(const ReproSpec& spec, int iters) {
  if (!kernels::Available())
    return MakeError(ErrorCode::kEnvironment, "repro needs the spin kernel (no nvcc at build)");
  if (aborting_) return MakeError(ErrorCode::kEnvironment, "communicators were aborted");
  uint64_t bucket = std::max<uint64_t>(spec.bucket_bytes, 4);
  int buckets = static_cast<int>((spec.grad_bytes + bucket - 1) / bucket);
  uint64_t seg_ns = static_cast<uint64_t>(spec.compute_us * 1e3 / std::max(buckets, 1));
  for (auto& d : devs_) {
    COMMDX_TRY(EnsureEvents(d.ev, d, static_cast<size_t>(iters) + 1));
    COMMDX_TRY(EnsureEvents(d.ev2, d, static_cast<size_t>(iters) + 1));
    COMMDX_TRY(EnsureEvents(d.seg, d, static_cast<size_t>(buckets) + 1));
  }
  const NcclApi& api = nccl_->api();
  auto all_reduce = [&](int b) -> Status {
    uint64_t off = static_cast<uint64_t>(b) * bucket;
    uint64_t count = std::min(bucket, spec.grad_bytes - off) / 4;  // float gradients
    ncclResult_t r = api.GroupStart();
    for (auto& d : devs_)
      if (r == ncclSuccess)
        r = api.AllReduce(d.send + off, d.send + off, count, ncclFloat32, ncclSum, d.comm,
                          d.stream2);
    ncclResult_t e = api.GroupEnd();
    if (r == ncclSuccess) r = e;
    if (r != ncclSuccess)
      return MakeError(ErrorCode::kEnvironment, nccl_->Describe("ncclAllReduce (repro)", r));
    return Ok{};
  };
  auto compute = [&](Dev& d) -> Status {
    COMMDX_CUDA(cudaSetDevice(d.dev));
    COMMDX_CUDA(kernels::Spin(seg_ns, d.sm_count, d.stream));
    return Ok{};
  };
  auto comm_waits_for = [&](Dev& d, cudaEvent_t ev) -> Status {
    COMMDX_CUDA(cudaEventRecord(ev, d.stream));
    COMMDX_CUDA(cudaStreamWaitEvent(d.stream2, ev, 0));
    return Ok{};
  };
  for (int k = 0; k < iters; ++k) {
    size_t ks = static_cast<size_t>(k);
    for (auto& d : devs_) COMMDX_TRY(comm_waits_for(d, d.ev[ks]));  // iteration start
    bool has_compute = spec.mode != ReproSpec::kCommOnly;
    bool has_comm = spec.mode != ReproSpec::kComputeOnly;
    for (int b = 0; b < buckets; ++b) {
      if (has_compute)
        for (auto& d : devs_) COMMDX_TRY(compute(d));
      if (spec.mode == ReproSpec::kOverlap) {
        for (auto& d : devs_) COMMDX_TRY(comm_waits_for(d, d.seg[static_cast<size_t>(b)]));
        COMMDX_TRY(all_reduce(b));
      }
    }
    if (spec.mode == ReproSpec::kSerial || spec.mode == ReproSpec::kCommOnly) {
      for (auto& d : devs_) COMMDX_TRY(comm_waits_for(d, d.seg[0]));
      for (int b = 0; b < buckets && has_comm; ++b) COMMDX_TRY(all_reduce(b));
    }
    for (auto& d : devs_) {  // the step ends when both streams are done
      cudaEvent_t joined = d.seg[static_cast<size_t>(buckets)];
      COMMDX_CUDA(cudaEventRecord(joined, d.stream2));
      COMMDX_CUDA(cudaStreamWaitEvent(d.stream, joined, 0));
      COMMDX_CUDA(cudaEventRecord(d.ev2[ks], d.stream));
    }
  }
  std::vector<WaitItem> items;
  for (size_t i = 0; i < devs_.size(); ++i) items.push_back({i, &devs_[i].ev2, 0, iters - 1});
  COMMDX_TRY(Wait(items));
  COMMDX_ASSIGN_OR_RETURN(TimeMatrix local, Elapsed(items, iters, &Dev::ev2));
  return Gather(local);
}

}  // namespace commdx::bench
