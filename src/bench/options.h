// Options of one `commdx bench` run, as the CLI parsed them (defaults documented in
// docs/bench-method.md).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bench/types.h"

namespace commdx::bench {

struct RunOptions {
  // Size sweep, nccl-tests style.
  uint64_t min_bytes = 8;
  uint64_t max_bytes = 8ull << 30;
  bool max_bytes_explicit = false;  // false: capped to what fits in GPU memory
  double factor = 2;
  uint64_t step_bytes = 0;
  DataType dtype = DataType::kFloat;
  RedOp op = RedOp::kSum;
  int root = 0;
  bool out_of_place = true;
  bool in_place = true;
  bool check = true;
  // Iterations: fixed when iters > 0, else adaptive (stop when the median moves by less than
  // stable_rel between batches, or when budget_ms of measured time is spent).
  int iters = 0;
  int warmup = 1;
  int min_iters = 5;
  int max_iters = 1000;
  double budget_ms = 50;
  double stable_rel = 0.01;
  int graph_iters = 0;  // > 0: each batch is one CUDA graph of this many operations
  // p2p
  uint64_t p2p_bytes = 256ull << 20;
  uint64_t p2p_latency_bytes = 8;
  // repro
  uint64_t grad_bytes = 256ull << 20;
  double compute_ms = 20;
  std::vector<uint64_t> bucket_bytes = {1ull << 20, 4ull << 20, 25ull << 20, 100ull << 20};
  // Progress lines (the CLI prints them on stderr when it is a terminal).
  std::function<void(const std::string&)> progress;
};

}  // namespace commdx::bench
