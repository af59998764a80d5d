// Built instead of bench/cuda/ when CMake found no CUDA toolkit.
#include "bench/create_backend.h"

namespace commdx::bench {

Result<std::unique_ptr<Backend>> CreateCudaBackend(const BackendOptions&) {
  return MakeError(ErrorCode::kEnvironment,
                   "this commdx was built without the CUDA toolkit, so it cannot run benchmarks; "
                   "rebuild with CUDA installed (only the toolkit's headers and static runtime "
                   "are needed)");
}

}  // namespace commdx::bench
