// What links the GPUs of this process: CUDA peer access, and NVML (dlopen'ed
// libnvidia-ml.so.1, declared here without nvml.h) for active NVLinks and the PCIe link.
// Kept small on purpose: the full topology is the probe layer's job (`commdx topo`).
#pragma once

#include <vector>

#include "model/bench_result.h"

namespace commdx::bench {

BenchTopology QueryTopology(const std::vector<int>& cuda_devices);

}  // namespace commdx::bench
