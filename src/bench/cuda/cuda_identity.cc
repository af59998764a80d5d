// Which GPU each rank drives, learnt once the communicator is up: the CUDA UUID of every local
// device, and in a multi-process run every rank's record all-gathered through NCCL. Two ranks
// with one UUID share one physical GPU (time-sliced pods, MPS, two host ids on one machine):
// their "link" is the GPU's time slicing, which the bench report must say (bench.shared_gpu).
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "bench/cuda/cuda_backend.h"
#include "bench/cuda/cuda_util.h"

namespace commdx::bench {

namespace {

// One rank's record on the wire: fixed-size, NUL-terminated fields.
struct Record {
  char uuid[48];
  char bus_id[32];
  char host[64];
};

void Put(char* dst, size_t cap, const std::string& s) {
  std::memset(dst, 0, cap);
  std::memcpy(dst, s.data(), std::min(s.size(), cap - 1));
}

std::string Get(const char* src, size_t cap) { return std::string(src, strnlen(src, cap)); }

std::string HostName() {
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) != 0) return "";
  return host;
}

}  // namespace

std::string CudaUuidText(const cudaUUID_t& u) {
  const auto* b = reinterpret_cast<const unsigned char*>(u.bytes);
  char out[48];
  std::snprintf(out, sizeof out,
                "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                b[14], b[15]);
  return out;
}

Status CudaBackend::LearnRankGpus() {
  const std::string host = HostName();
  info_.rank_gpus.clear();
  if (!launch_.multi_process()) {
    for (const RankInfo& r : info_.ranks)
      info_.rank_gpus.push_back({r.rank, r.uuid, r.bus_id, host});
    return Ok{};
  }
  Dev& d = devs_[0];
  const RankInfo& mine = info_.ranks[0];
  Record rec;
  Put(rec.uuid, sizeof rec.uuid, mine.uuid);
  Put(rec.bus_id, sizeof rec.bus_id, mine.bus_id);
  Put(rec.host, sizeof rec.host, host);
  const size_t world = static_cast<size_t>(launch_.world_size);
  COMMDX_CUDA(cudaSetDevice(d.dev));
  char* buf = nullptr;
  COMMDX_CUDA(cudaMalloc(&buf, (world + 1) * sizeof(Record)));
  std::vector<Record> all(world);
  Status st = [&]() -> Status {
    COMMDX_CUDA(
        cudaMemcpyAsync(buf, &rec, sizeof rec, cudaMemcpyHostToDevice, d.stream));
    ncclResult_t r = nccl_->api().AllGather(buf, buf + sizeof(Record), sizeof(Record), ncclInt8,
                                            d.world, d.stream);
    if (r != ncclSuccess)
      return MakeError(ErrorCode::kEnvironment,
                       nccl_->Describe("ncclAllGather (each rank's GPU)", r, d.world));
    COMMDX_TRY(EnsureEvents(d.ev, d, 2));
    COMMDX_CUDA(cudaEventRecord(d.ev[1], d.stream));
    COMMDX_TRY(Wait({{0, &d.ev, 1, 1}}));
    COMMDX_CUDA(cudaMemcpy(all.data(), buf + sizeof(Record), world * sizeof(Record),
                           cudaMemcpyDeviceToHost));
    return Ok{};
  }();
  cudaFree(buf);
  COMMDX_TRY(st);
  for (size_t i = 0; i < world; ++i)
    info_.rank_gpus.push_back({static_cast<int>(i), Get(all[i].uuid, sizeof all[i].uuid),
                               Get(all[i].bus_id, sizeof all[i].bus_id),
                               Get(all[i].host, sizeof all[i].host)});
  // Ranks on several hosts talk through the network: the expected bandwidth is the NICs', not
  // this GPU's NVLink (analysis/bench_expected.h).
  info_.topology.nodes = std::max(1, HostCount(info_.rank_gpus));
  return Ok{};
}

}  // namespace commdx::bench
