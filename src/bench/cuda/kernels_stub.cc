// Used when nvcc is not available at build time: no device kernels. The backend then fills and
// checks buffers from the host and waives the SM copy and repro cases (kernels.h).
#include "bench/cuda/kernels.h"

namespace commdx::bench::kernels {

bool Available() { return false; }
cudaError_t Fill(void*, uint64_t, const pattern::Params&, int, cudaStream_t) {
  return cudaErrorNotSupported;
}
cudaError_t CountWrong(const void*, uint64_t, const pattern::Params&, unsigned long long*,
                       cudaStream_t) {
  return cudaErrorNotSupported;
}
cudaError_t Gate(const volatile unsigned*, unsigned, cudaStream_t) { return cudaErrorNotSupported; }
cudaError_t Spin(uint64_t, int, cudaStream_t) { return cudaErrorNotSupported; }
cudaError_t Copy(void*, const void*, uint64_t, int, cudaStream_t) { return cudaErrorNotSupported; }

}  // namespace commdx::bench::kernels
