// Turning CUDA and NCCL return codes into Errors that name the call, the GPU and the place.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "base/result.h"

namespace commdx::bench {

Error CudaError(const char* call, cudaError_t e, const char* file, int line, int device = -1);

#define COMMDX_CUDA(call)                                                                    \
  do {                                                                                       \
    cudaError_t e_ = (call);                                                                 \
    if (e_ != cudaSuccess) return ::commdx::bench::CudaError(#call, e_, __FILE__, __LINE__); \
  } while (0)

}  // namespace commdx::bench
