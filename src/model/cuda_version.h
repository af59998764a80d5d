// CUDA's integer version (cudaDriverGetVersion, cudaRuntimeGetVersion, CUDART_VERSION, NVML's
// nvmlSystemGetCudaDriverVersion): 1000 x major + 10 x minor, so 12040 is CUDA 12.4 and 13000
// CUDA 13.0. One decoder for every report and check.
#pragma once

#include <string>

namespace commdx {

struct CudaVersion {
  int major = 0;
  int minor = 0;
};

// 12040 -> {12, 4}; {0, 0} for a code <= 0 (no version known).
CudaVersion CudaVersionFromCode(int code);

// 12040 -> "12.4"; "" for a code <= 0.
std::string CudaVersionString(int code);

}  // namespace commdx
