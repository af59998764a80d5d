// Warning lines (grammar §1.1, §1.5). Every one is kept with its source location; what each
// means is decided by the analysis (comm_warn_catalogue), not here.
//
//   ubuntu:9621:9688 [3] misc/shmutils.cc:112 NCCL WARN Error while creating shared memory ...
//   gpu-bql-144-103:18553:18611 [0] include/socket.h:360 WARN Call to connect failed : ... (<= 2.2)
//   [2025-07-21 19:05:29] node004:27907:27907 [1] transport/nvls.cc:254 NCCL WARN Cuda failure 401
//   [3] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device
//   NCCL WARN Connect to fe80::745d:60ff:fef9:e1dd%ip6tnl0<46681> failed : Connection timed out
#include "base/text.h"
#include "ingest/nccl_log/kinds.h"

namespace commdx::ingest::nccl_log {

Parsed ParseWarn(const LineInfo& li, Builder& b) {
  if (li.level != Level::kWarn) return Parsed::kNo;
  std::string_view text = Trim(li.msg);
  if (text.empty()) return Parsed::kMalformed;
  b.AddWarning(li, text, false);
  return Parsed::kYes;
}

}  // namespace commdx::ingest::nccl_log
