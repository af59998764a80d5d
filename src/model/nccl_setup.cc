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

namespace {
bool Starts(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
}  // namespace

TransportKind ClassifyTransport(std::string_view via) {
  if (Starts(via, "P2P")) return TransportKind::kP2P;
  if (Starts(via, "SHM") || Starts(via, "direct shared memory")) return TransportKind::kShm;
  if (Starts(via, "NET/IB/") || via == "NET/IB") return TransportKind::kNetIB;
  if (Starts(via, "NET/Socket")) return TransportKind::kNetSocket;
  if (Starts(via, "NET/")) return TransportKind::kNetOther;
  if (Starts(via, "COLLNET") || Starts(via, "CollNet")) return TransportKind::kCollNet;
  if (Starts(via, "NVLS")) return TransportKind::kNvls;
  return TransportKind::kUnknown;
}

std::string TransportShortName(std::string_view via) {
  TransportKind k = ClassifyTransport(via);
  bool gdr = via.find("GDRDMA") != std::string_view::npos;
  switch (k) {
    case TransportKind::kP2P: {
      if (Starts(via, "P2P/CUMEM")) return "P2P/CUMEM";
      if (Starts(via, "P2P/IPC")) return "P2P/IPC";
      if (Starts(via, "P2P/direct")) return "P2P/direct";
      if (Starts(via, "P2P/indirect")) return "P2P/indirect";
      if (Starts(via, "P2P/common")) return "P2P/same-GPU";
      return "P2P";
    }
    case TransportKind::kShm:
      return "SHM";
    case TransportKind::kNetIB:
      return gdr ? "NET/IB+GDR" : "NET/IB";
    case TransportKind::kNetSocket:
      return "NET/Socket";
    case TransportKind::kNetOther: {
      // NET/<name>/<dev>...: the plugin name is everything up to the device number.
      std::string_view rest = via.substr(4);
      size_t slash = rest.find('/');
      std::string name = "NET/" + std::string(rest.substr(0, slash));
      return gdr ? name + "+GDR" : name;
    }
    case TransportKind::kCollNet:
      return gdr ? "CollNet+GDR" : "CollNet";
    case TransportKind::kNvls:
      return "NVLS";
    case TransportKind::kUnknown:
      break;
  }
  return std::string(via.substr(0, 16));
}

const NcclProcess* NcclSetup::FindProcess(std::string_view host, int64_t pid) const {
  for (const auto& p : processes)
    if (p.host == host && p.pid == pid) return &p;
  return nullptr;
}

const NcclNetInfo* NcclSetup::FindNet(std::string_view host, int64_t pid) const {
  for (const auto& n : nets)
    if (n.host == host && n.pid == pid) return &n;
  return nullptr;
}

std::vector<const NcclNote*> NcclSetup::NotesOfKind(std::string_view kind) const {
  std::vector<const NcclNote*> out;
  for (const auto& n : notes)
    if (n.kind == kind) out.push_back(&n);
  return out;
}

}  // namespace commdx
