// Error-return traces printed on the unwind path of a failing call (grammar §1.5):
//
//   gpu2-ru7:2143:2561 [1] NCCL INFO include/shm.h:41 -> 2
//   gpu-bql-144-103:18553:18611 [0] INFO bootstrap.cu:28 -> 2 [Net]
//   a100-st-p4d24xlarge-22:183006:183220 [1] NCCL INFO misc/socket.cc:535 -> 6
//   x:1:1 [0] NCCL INFO misc/socket.cc:607 -> 6 socketWait(NCCL_SOCKET_SEND, ...)   (2.27+)
//   ^file:line  -> ncclResult_t (1 cuda, 2 system, 3 internal, 4 argument, 5 usage, 6 remote)
#include "base/text.h"
#include "ingest/nccl_log/kinds.h"

namespace commdx::ingest::nccl_log {

Parsed ParseErrorReturn(const LineInfo& li, Builder& b) {
  std::string_view s = li.msg;
  // Cheap reject first: the message starts with a "file.cc:123" token.
  size_t sp = s.find(' ');
  if (sp == std::string_view::npos || sp == 0 || sp > 80 || !IsDigit(s[sp - 1])) return Parsed::kNo;
  size_t arrow = s.find(" -> ");
  if (arrow == std::string_view::npos || arrow == 0 || arrow > 80) return Parsed::kNo;
  std::string_view loc = s.substr(0, arrow);
  size_t colon = loc.rfind(':');
  if (colon == std::string_view::npos || loc.find(' ') != std::string_view::npos)
    return Parsed::kNo;
  if (!ParseInt(loc.substr(colon + 1))) return Parsed::kNo;
  std::string_view rest = s.substr(arrow + 4);
  auto code = ConsumeInt(rest);
  if (!code) return Parsed::kMalformed;
  // After "Abort START" / "Destroy START" of its process, the unwinding of sockets being closed
  // (misc/socket.cc -> 3 on a healthy exit): kept as a note of its own kind, not a failure.
  b.AddNote(li, b.InTeardown(li) ? "teardown_error_return" : "error_return",
            "-> " + std::to_string(*code), static_cast<int>(*code));
  return Parsed::kYes;
}

}  // namespace commdx::ingest::nccl_log
