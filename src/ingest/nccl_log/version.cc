// The version banner and the driver version (grammar §2.1):
//
//   vm:656:656 [0] NCCL INFO NCCL version 2.28.9+cuda13.0      (INFO line, 2.23+ or DEBUG_FILE)
//   NCCL version 2.2.13+cuda9.0                                (bare stdout banner, <= 2.22)
//   ... unhandled system error, NCCL version 2.14.3             (framework error text)
//   vm:656:656 [0] NCCL INFO cudaDriverVersion 13000           (2.13+)
//   ubuntu2:321049:321049 [0] NCCL INFO NCCL git version HEAD 1933fdd-dirty   (2.29+)
//                                                        ^branch ^commit
#include "base/text.h"
#include "ingest/nccl_log/kinds.h"

namespace commdx::ingest::nccl_log {

Parsed ParseVersion(const LineInfo& li, Builder& b) {
  std::string_view msg = li.msg;
  if (StartsWith(msg, "cudaDriverVersion ")) {
    auto v = ParseInt(Trim(msg.substr(18)));
    if (!v) return Parsed::kMalformed;
    b.Process(li).cuda_driver = static_cast<int>(*v);
    return Parsed::kYes;
  }
  if (StartsWith(msg, "NCCL git version ")) {
    // Branch and commit as the build recorded them (the Makefile's or CMake's git query, or
    // NCCL_GIT_BRANCH / NCCL_GIT_COMMIT_HASH): two words, the commit perhaps "-dirty".
    std::string_view rest = Trim(msg.substr(17));
    if (rest.empty() || li.level == Level::kBanner) return Parsed::kMalformed;
    NcclProcess& p = b.Process(li);
    if (p.git_version.empty()) p.git_version = std::string(rest);
    return Parsed::kYes;
  }
  if (!StartsWith(msg, "NCCL version ")) return Parsed::kNo;
  std::string_view full = msg.substr(13);
  size_t end = 0;
  while (end < full.size() && !IsSpace(full[end]) && full[end] != ',' && full[end] != ')') ++end;
  full = full.substr(0, end);
  if (VersionNumber(full).empty()) return Parsed::kMalformed;
  b.SetVersion(li, full);
  return Parsed::kYes;
}

}  // namespace commdx::ingest::nccl_log
