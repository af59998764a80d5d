// CudaBackend::UseGroup: a job's process groups smaller than the job, replayed on
// sub-communicators split from the one of every rank (ncclCommSplit), all of them side by side.
#include "bench/cuda/cuda_backend.h"
#include "bench/cuda/cuda_util.h"
#include "bench/watchdog.h"

namespace commdx::bench {

Status CudaBackend::UseGroup(int size, int stride) {
  if (aborting_) return MakeError(ErrorCode::kEnvironment, "communicators were aborted");
  const int world = info_.world_size;
  const bool whole = size <= 0 || size >= world;
  if (!whole && (stride < 1 || world % (size * stride) != 0))
    return MakeError(ErrorCode::kUsage, std::to_string(world) +
                                            " ranks do not split into groups of " +
                                            std::to_string(size) + " ranks " +
                                            std::to_string(stride) + " apart");
  DropGraphs();
  have_last_spec_ = false;  // a new communicator connects inside its first launch: ungated
  if (!whole && (sub_size_ != size || sub_stride_ != stride)) {
    const NcclApi& api = nccl_->api();
    if (!api.CommSplit)
      return MakeError(ErrorCode::kEnvironment,
                       "this NCCL (" + info_.nccl_version +
                           ") has no ncclCommSplit (2.18 or newer), so groups smaller than the "
                           "job cannot be formed");
    for (auto& d : devs_)
      if (d.sub) {
        COMMDX_CUDA(cudaSetDevice(d.dev));
        COMMDX_CUDA(cudaStreamSynchronize(d.stream));
        api.CommDestroy(d.sub);
        d.sub = nullptr;
      }
    sub_size_ = 0;
    if (watchdog_)
      watchdog_->Arm("NCCL sub-communicators of " + std::to_string(size) +
                     " ranks (ncclCommSplit)");
    const int span = size * stride;
    ncclResult_t r = api.GroupStart();
    for (auto& d : devs_) {
      if (r != ncclSuccess) break;
      const int color = d.global / span * stride + d.global % stride;
      r = api.CommSplit(d.world, color, d.global, &d.sub, nullptr);
    }
    ncclResult_t end = api.GroupEnd();
    if (r == ncclSuccess) r = end;
    if (r != ncclSuccess)
      return MakeError(ErrorCode::kEnvironment,
                       nccl_->Describe("ncclCommSplit", r, devs_[0].world) + " (groups of " +
                           std::to_string(size) + " ranks)");
    sub_size_ = size;
    sub_stride_ = stride;
  }
  for (auto& d : devs_) {
    d.comm = whole ? d.world : d.sub;
    d.rank = whole ? d.global : d.global % (size * stride) / stride;
  }
  return Ok{};
}

}  // namespace commdx::bench
