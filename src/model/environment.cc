#include "model/environment.h"

namespace commdx {

const char* NcclOriginName(NcclOrigin o) {
  switch (o) {
    case NcclOrigin::kFlag:
      return "--nccl-lib";
    case NcclOrigin::kEnvVar:
      return "COMMDX_NCCL_LIB";
    case NcclOrigin::kLoader:
      return "loader";
    case NcclOrigin::kPytorch:
      return "pytorch";
    case NcclOrigin::kProcess:
      return "process";
  }
  return "loader";
}

std::optional<NcclOrigin> ParseNcclOrigin(std::string_view s) {
  for (NcclOrigin o : {NcclOrigin::kFlag, NcclOrigin::kEnvVar, NcclOrigin::kLoader,
                       NcclOrigin::kPytorch, NcclOrigin::kProcess})
    if (s == NcclOriginName(o)) return o;
  return std::nullopt;
}

}  // namespace commdx
