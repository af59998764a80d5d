#include "bench/create_backend.h"

namespace commdx::bench {

Result<std::unique_ptr<Backend>> CreateBackend(const BackendOptions& options) {
  if (options.kind == "fake") return std::unique_ptr<Backend>(new FakeBackend(options.fake));
  if (options.kind == "cuda") return CreateCudaBackend(options);
  return MakeError(ErrorCode::kUsage, "unknown backend '" + options.kind + "' (cuda or fake)");
}

}  // namespace commdx::bench
