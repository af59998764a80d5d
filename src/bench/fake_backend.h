// A backend with no GPU: times come from an alpha-beta model of a link, with deterministic
// jitter, so the sweep, statistics, watchdog, reports and findings can be tested anywhere.
// Faults can be injected: a slow rank, wrong results, a hang, an asymmetric P2P pair.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>

#include "bench/backend.h"

namespace commdx::bench {

struct FakeOptions {
  int ranks = 2;
  double latency_us = 10;   // alpha of every collective
  double busbw_gbps = 300;  // bus bandwidth at large sizes
  double jitter = 0.01;     // relative spread of iteration times
  int slow_rank = -1;       // this rank's times are multiplied by slow_factor
  double slow_factor = 1.0;
  int64_t wrong_elements = 0;  // reported by Check on every rank
  uint64_t hang_at_bytes = 0;  // Time() of an operation this large blocks until Abort()
  double p2p_gbps = 400;
  double p2p_latency_us = 2;
  int asym_src = -1;  // this directed pair copies at asym_factor x p2p_gbps
  int asym_dst = -1;
  double asym_factor = 0.5;
  bool sm_kernels = true;
  uint64_t mem_bytes = 80ull << 30;
  int shared_gpu_ranks = 0;  // the first N ranks (N >= 2) share one GPU, as time-sliced pods do
  BenchTopology topology = {"Fake GPU", 9, 0, BenchLink::kNvLink, 4, 18, 5, 16, 1, false};
};

class FakeBackend : public Backend {
 public:
  explicit FakeBackend(FakeOptions options);
  const BackendInfo& Info() const override { return info_; }
  Status Connect() override;
  Status Reserve(uint64_t send_bytes, uint64_t recv_bytes) override;
  Status Prepare(const CollSpec& spec, uint64_t seed) override;
  Result<TimeMatrix> Time(const CollSpec& spec, int iters, bool graph) override;
  Result<std::vector<int64_t>> Check(const CollSpec& spec, uint64_t seed) override;
  Result<TimeMatrix> TimeCopy(const CopySpec& spec, int iters) override;
  Result<TimeMatrix> TimeRepro(const ReproSpec& spec, int iters) override;
  Result<TimeMatrix> TimeSequence(const std::vector<CollSpec>& seq, int iters) override;
  Status UseGroup(int size, int stride) override;
  int group_size() const { return group_size_; }  // 0: every rank (UseGroup)
  std::string DescribeStuck() override;
  void Abort() override;

  // For tests: how many operations were timed in total, and the largest reservation.
  int64_t timed_ops() const { return timed_ops_; }
  uint64_t reserved_bytes() const { return reserved_; }

 private:
  double Jitter();
  Status CheckAborted();  // the watchdog's message once Abort() ran
  double CollNs(const CollSpec& spec) const;

  FakeOptions o_;
  BackendInfo info_;
  uint64_t rng_ = 88172645463325252ull;
  int64_t timed_ops_ = 0;
  uint64_t reserved_ = 0;
  int group_size_ = 0;
  std::mutex mu_;
  std::condition_variable cv_;
  std::atomic<bool> aborted_{false};
};

}  // namespace commdx::bench
