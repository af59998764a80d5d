// Picks and creates the backend: the real CUDA/NCCL one, or the fake one (tests, demos).
#pragma once

#include <memory>
#include <string>

#include "base/result.h"
#include "bench/backend.h"
#include "bench/fake_backend.h"
#include "bench/launch.h"

namespace commdx::bench {

struct BackendOptions {
  std::string kind = "cuda";  // "cuda" | "fake"
  std::string nccl_lib;       // --nccl-lib
  int ngpus = 0;              // single process: GPUs to use (0 = all visible)
  // Queue each timed batch behind a gate kernel, then release it (needs nvcc-built kernels).
  // Off by default: not yet validated on a GPU machine (docs/measurements/bench-h200x2.md).
  bool gate = false;
  // Plain launches: one timing event per this many iterations on each GPU (1 = every iteration).
  // Each cudaEventRecord costs CPU time between launches, which at latency-bound sizes is the
  // bottleneck; a stride of K reports each iteration as the mean of its group of K.
  int event_stride = 1;
  LaunchEnv launch;
  double connect_timeout_s = 120;
  // Fault injection for watchdog tests: after the first point (so connections exist), this
  // global rank stops issuing its part of each collective and its peers wait until the
  // watchdog aborts them (-1 = off).
  int fault_skip_rank = -1;
  FakeOptions fake;
};

Result<std::unique_ptr<Backend>> CreateBackend(const BackendOptions& options);

// The real backend (bench/cuda/), or an error saying why it is not there.
Result<std::unique_ptr<Backend>> CreateCudaBackend(const BackendOptions& options);

}  // namespace commdx::bench
