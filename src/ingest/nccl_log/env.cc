// Environment overrides (grammar §2.1):
//
//   vm:656:668 [1] NCCL INFO NCCL_NVLS_ENABLE set by environment to 0.   (integers end with '.')
//   [trainer3]:twshared1016:1958:1958 [3] NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth2
//   [trainer3]:twshared1016:1958:1958 [3] NCCL INFO NCCL_SOCKET_IFNAME set to eth2   (NET echo)
//   036260b61d3a:33347:33366 [6] NCCL INFO NCCL_ALGO set by environment to Tree,Ring,,NVLS
#include "base/text.h"
#include "ingest/nccl_log/kinds.h"

namespace commdx::ingest::nccl_log {

Parsed ParseEnv(const LineInfo& li, Builder& b) {
  std::string_view s = li.msg;
  if (!StartsWith(s, "NCCL_")) return Parsed::kNo;
  size_t sp = s.find(' ');
  if (sp == std::string_view::npos) return Parsed::kNo;
  std::string_view name = s.substr(0, sp);
  std::string_view rest = s.substr(sp + 1);
  bool echo = false;
  if (!ConsumePrefix(rest, "set by environment to")) {
    if (!ConsumePrefix(rest, "set to")) return Parsed::kNo;
    echo = true;  // the NET subsystem repeating a setting it was given
  }
  std::string_view value = Trim(rest);
  // Integer parameters are printed with a trailing period: "to 1." -> "1".
  if (value.size() > 1 && value.back() == '.' && IsDigit(value[value.size() - 2]))
    value.remove_suffix(1);
  (void)echo;  // the echo alone still proves the setting (excerpts often lack the ENV line)
  b.AddOverride(li, name, value, false);
  return Parsed::kYes;
}

}  // namespace commdx::ingest::nccl_log
