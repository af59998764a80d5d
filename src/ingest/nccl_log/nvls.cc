// NVLink SHARP (NVLS) lines (grammar §2.10):
//
//   NVLS multicast support is available on dev 0                              (2.17+)
//   x:1:1 [0] NCCL INFO NVLS multicast support is not available on dev 0 (NVLS_NCHANNELS 0)
//   x:1:1 [0] NCCL INFO NVLS comm 0x.. headRank 0 nHeads 4 buffSize 4194304 memSize 2097152 ...
#include "base/text.h"
#include "ingest/nccl_log/kinds.h"

namespace commdx::ingest::nccl_log {

Parsed ParseNvls(const LineInfo& li, Builder& b) {
  std::string_view s = li.msg;
  if (ConsumePrefix(s, "NVLS multicast support is ")) {
    if (StartsWith(s, "not available"))
      b.AddNote(li, "nvls_unavailable", li.msg);
    else if (StartsWith(s, "available"))
      b.AddNote(li, "nvls_available", li.msg);
    else
      return Parsed::kMalformed;
    return Parsed::kYes;
  }
  if (StartsWith(s, "NVLS ") || StartsWith(s, "Connected NVLS") || StartsWith(s, "NVLS:") ||
      StartsWith(s, "Nvls"))
    return Parsed::kYes;
  return Parsed::kNo;
}

}  // namespace commdx::ingest::nccl_log
