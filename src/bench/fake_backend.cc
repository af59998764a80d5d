#include "bench/fake_backend.h"

#include <algorithm>
#include <cmath>

#include "bench/watchdog.h"

namespace commdx::bench {

FakeBackend::FakeBackend(FakeOptions options) : o_(std::move(options)) {
  info_.kind = "fake";
  info_.nccl_library = "(fake backend: no NCCL)";
  info_.nccl_version = "0.0.0";
  info_.cuda_runtime = "-";
  info_.cuda_driver = "-";
  info_.world_size = o_.ranks;
  info_.local_ranks = o_.ranks;
  info_.sm_kernels = o_.sm_kernels;
  info_.topology = o_.topology;
  for (int r = 0; r < o_.ranks; ++r) {
    // Ranks told to share a GPU get the first one's bus id and UUID.
    const int gpu = r < o_.shared_gpu_ranks ? 0 : r;
    info_.ranks.push_back({r, r, o_.topology.gpu_name, "0000:00:0" + std::to_string(gpu) + ".0",
                           o_.mem_bytes,
                           "GPU-fa4e0000-0000-0000-0000-00000000000" + std::to_string(gpu)});
  }
}

Status FakeBackend::Connect() {
  info_.rank_gpus.clear();
  for (const RankInfo& r : info_.ranks)
    info_.rank_gpus.push_back({r.rank, r.uuid, r.bus_id, "fakehost"});
  return Ok{};
}

double FakeBackend::Jitter() {
  // xorshift64: deterministic, so tests see the same numbers every run.
  rng_ ^= rng_ << 13;
  rng_ ^= rng_ >> 7;
  rng_ ^= rng_ << 17;
  double u = static_cast<double>(rng_ % 1000000) / 1e6;  // [0,1)
  return 1.0 + o_.jitter * (2 * u - 1);
}

double FakeBackend::CollNs(const CollSpec& spec) const {
  double factor = BusBwFactor(spec.kind, spec.nranks);
  double bytes = static_cast<double>(spec.SizeBytes()) * factor;
  return o_.latency_us * 1e3 + bytes / o_.busbw_gbps;  // bytes / (GB/s) = ns
}

Status FakeBackend::Reserve(uint64_t send_bytes, uint64_t recv_bytes) {
  if (send_bytes + recv_bytes > o_.mem_bytes)
    return MakeError(ErrorCode::kEnvironment,
                     "CUDA out of memory on GPU 0 (fake): cannot allocate buffers");
  reserved_ = std::max(reserved_, send_bytes + recv_bytes);
  return Ok{};
}

Status FakeBackend::Prepare(const CollSpec&, uint64_t) { return Ok{}; }

Result<TimeMatrix> FakeBackend::Time(const CollSpec& spec, int iters, bool) {
  if (o_.hang_at_bytes && spec.SizeBytes() == o_.hang_at_bytes) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return aborted_.load(); });
  }
  COMMDX_TRY(CheckAborted());
  TimeMatrix t(static_cast<size_t>(o_.ranks));
  double base = CollNs(spec);
  for (int k = 0; k < iters; ++k) {
    double j = Jitter();
    for (int r = 0; r < o_.ranks; ++r)
      t[static_cast<size_t>(r)].push_back(base * j * (r == o_.slow_rank ? o_.slow_factor : 1.0));
  }
  timed_ops_ += iters;
  if (watchdog_) watchdog_->Beat();
  return t;
}

Status FakeBackend::CheckAborted() {
  if (!aborted_) return Ok{};
  if (watchdog_) watchdog_->Acknowledge();
  return MakeError(ErrorCode::kEnvironment,
                   watchdog_ ? watchdog_->message() : std::string("aborted"));
}

Result<TimeMatrix> FakeBackend::TimeSequence(const std::vector<CollSpec>& seq, int iters) {
  COMMDX_TRY(CheckAborted());
  TimeMatrix t(static_cast<size_t>(o_.ranks));
  for (int k = 0; k < iters; ++k)
    for (const CollSpec& spec : seq) {
      double ns = CollNs(spec) * Jitter();
      for (int r = 0; r < o_.ranks; ++r)
        t[static_cast<size_t>(r)].push_back(ns * (r == o_.slow_rank ? o_.slow_factor : 1.0));
    }
  timed_ops_ += iters * static_cast<int>(seq.size());
  if (watchdog_) watchdog_->Beat();
  return t;
}

Status FakeBackend::UseGroup(int size, int stride) {
  if (size <= 0 || size >= o_.ranks) {
    group_size_ = 0;
    return Ok{};
  }
  if (stride < 1 || o_.ranks % (size * stride) != 0)
    return MakeError(ErrorCode::kUsage,
                     std::to_string(o_.ranks) + " ranks do not split into groups of " +
                         std::to_string(size) + " ranks " + std::to_string(stride) + " apart");
  group_size_ = size;
  return Ok{};
}

Result<std::vector<int64_t>> FakeBackend::Check(const CollSpec& spec, uint64_t) {
  std::vector<int64_t> wrong(static_cast<size_t>(o_.ranks), o_.wrong_elements);
  if (spec.kind == CollectiveType::kReduce)
    for (int r = 0; r < o_.ranks; ++r)
      if (r != spec.root) wrong[static_cast<size_t>(r)] = 0;
  return wrong;
}

Result<TimeMatrix> FakeBackend::TimeCopy(const CopySpec& spec, int iters) {
  auto ns_for = [&](int src, int dst) {
    double bw = o_.p2p_gbps * (spec.sm ? 0.95 : 1.0) * (spec.bidirectional ? 0.9 : 1.0);
    if (src == o_.asym_src && dst == o_.asym_dst) bw *= o_.asym_factor;
    return o_.p2p_latency_us * 1e3 + static_cast<double>(spec.bytes) / bw;
  };
  TimeMatrix t(spec.bidirectional ? 2 : 1);
  for (int k = 0; k < iters; ++k) {
    double j = Jitter();
    t[0].push_back(ns_for(spec.src, spec.dst) * j);
    if (spec.bidirectional) t[1].push_back(ns_for(spec.dst, spec.src) * j);
  }
  return t;
}

Result<TimeMatrix> FakeBackend::TimeRepro(const ReproSpec& spec, int iters) {
  uint64_t bucket = std::max<uint64_t>(spec.bucket_bytes, 1);
  int buckets = static_cast<int>((spec.grad_bytes + bucket - 1) / bucket);
  double compute_ns = spec.compute_us * 1e3;
  double seg = buckets ? compute_ns / buckets : compute_ns;
  double factor = BusBwFactor(CollectiveType::kAllReduce, o_.ranks);
  double step = 0, comm_end = 0, comm_sum = 0;
  for (int b = 0; b < buckets; ++b) {
    uint64_t bytes = std::min(bucket, spec.grad_bytes - static_cast<uint64_t>(b) * bucket);
    double c = o_.latency_us * 1e3 + static_cast<double>(bytes) * factor / o_.busbw_gbps;
    comm_sum += c;
    comm_end = std::max(comm_end, seg * (b + 1)) + c;
  }
  switch (spec.mode) {
    case ReproSpec::kOverlap:
      step = std::max(compute_ns, comm_end);
      break;
    case ReproSpec::kSerial:
      step = compute_ns + comm_sum;
      break;
    case ReproSpec::kComputeOnly:
      step = compute_ns;
      break;
    case ReproSpec::kCommOnly:
      step = comm_sum;
      break;
  }
  TimeMatrix t(static_cast<size_t>(o_.ranks));
  for (int k = 0; k < iters; ++k) {
    double j = Jitter();
    for (int r = 0; r < o_.ranks; ++r) t[static_cast<size_t>(r)].push_back(step * j);
  }
  return t;
}

std::string FakeBackend::DescribeStuck() { return "rank 1 (fake GPU 1)"; }

void FakeBackend::Abort() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    aborted_ = true;
  }
  cv_.notify_all();
}

}  // namespace commdx::bench
