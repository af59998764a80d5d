#include "bench/cuda/cuda_util.h"

#include <cstring>

#include "model/cuda_version.h"

namespace commdx::bench {

Error CudaError(const char* call, cudaError_t e, const char* file, int line, int device) {
  const char* base = std::strrchr(file, '/');
  std::string where = std::string(base ? base + 1 : file) + ":" + std::to_string(line);
  std::string msg = std::string(call) + " failed";
  if (device >= 0) msg += " on GPU " + std::to_string(device);
  msg += ": " + std::string(cudaGetErrorString(e)) + " (" + cudaGetErrorName(e) + ", at " + where +
         ")";
  if (e == cudaErrorMemoryAllocation) msg = "CUDA out of memory: " + msg;
  if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver)
    msg += "; is there a GPU and an NVIDIA driver new enough for CUDA " +
           CudaVersionString(CUDART_VERSION) + "?";
  return MakeError(ErrorCode::kEnvironment, msg);
}

}  // namespace commdx::bench
