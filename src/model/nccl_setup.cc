#include "model/nccl_setup.h"

namespace commdx {

const char* TransportKindName(TransportKind k) {
  switch (k) {
    case TransportKind::kUnknown:
      return "unknown";
    case TransportKind::kP2P:
      return "P2P";
    case TransportKind::kShm:
      return "SHM";
    case TransportKind::kNetIB:
      return "NET/IB";
    case TransportKind::kNetSocket:
      return "NET/Socket";
    case TransportKind::kNetOther:
      return "NET/other";
    case TransportKind::kCollNet:
      return "CollNet";
    case TransportKind::kNvls:
      return "NVLS";
  }
  return "unknown";
}

}  // namespace commdx
