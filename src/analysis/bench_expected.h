// The bandwidth a benchmark should reach on its link, from the topology the benchmark recorded
// (live CUDA/NVML facts, or only the GPU name for an nccl-tests file), through the shared
// table in expected_bandwidth.h (docs/bench-method.md).
#pragma once

#include <string>

#include "model/bench_result.h"

namespace commdx::analysis {

struct ExpectedLink {
  bool known = false;
  double line_rate_gbps = 0;  // per GPU per direction
  std::string basis;          // "NVLink4, 18 links x 26.56 GB/s = 478 GB/s per direction"
  double confidence = 0;      // 0..1: lower when guessed from the GPU name alone
};

ExpectedLink ExpectedForBench(const BenchTopology& topology);

}  // namespace commdx::analysis
