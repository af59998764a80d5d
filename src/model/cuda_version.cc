#include "model/cuda_version.h"

namespace commdx {

CudaVersion CudaVersionFromCode(int code) {
  if (code <= 0) return {};
  return {code / 1000, (code % 1000) / 10};
}

std::string CudaVersionString(int code) {
  if (code <= 0) return "";
  const CudaVersion v = CudaVersionFromCode(code);
  return std::to_string(v.major) + "." + std::to_string(v.minor);
}

}  // namespace commdx
