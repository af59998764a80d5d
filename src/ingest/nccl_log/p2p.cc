// Peer-to-peer capability lines and the kernel-resource check (grammar §2.10):
//
//   x:1:1 [0] NCCL INFO P2P is disabled between connected GPUs 1 and 0. You can repress this
//       message with NCCL_IGNORE_DISABLED_P2P=1.                                      (2.12.7+)
//   x:1:1 [0] NCCL INFO Could not enable P2P between dev 0(=1a000) and dev 1(=1b000)
//   localhost:11344:11344 [1] NCCL INFO ncclMaxSharedMem 82240 exceeds device/fn maxSharedMem 79856
//   vm:656:668 [1] NCCL INFO Check P2P Type isAllDirectP2p 1 directMode 1 isAllCudaP2p 1
#include "base/text.h"
#include "ingest/nccl_log/kinds.h"

namespace commdx::ingest::nccl_log {

Parsed ParseP2p(const LineInfo& li, Builder& b) {
  std::string_view s = li.msg;
  if (StartsWith(s, "P2P is disabled between connected GPUs")) {
    b.AddNote(li, "p2p_disabled_connected", s.substr(0, s.find('.')));
    return Parsed::kYes;
  }
  if (StartsWith(s, "Could not enable P2P between")) {
    b.AddNote(li, "p2p_enable_failed", s);
    return Parsed::kYes;
  }
  if (StartsWith(s, "ncclMaxSharedMem ")) {
    if (!Contains(s, " exceeds ")) return Parsed::kMalformed;
    b.AddNote(li, "max_shared_mem", s);
    return Parsed::kYes;
  }
  if (StartsWith(s, "Check P2P Type") || StartsWith(s, "P2P Chunksize") ||
      StartsWith(s, "P2P plugin") || StartsWith(s, "P2P/"))
    return Parsed::kYes;
  return Parsed::kNo;
}

}  // namespace commdx::ingest::nccl_log
