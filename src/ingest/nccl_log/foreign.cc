// Lines that are not NCCL output but carry NCCL evidence:
//
//   [trainer0|0]:ncclInternalError: Internal check failed.            (framework error, code 3)
//   [trainer0|0]:Last error:                                          (the next line is the WARN
//   [trainer0|0]:ncclSocketInit: connecting to address  with family 59936 is neither ...  text)
//   NET/IBP:Got completion from peer 7.6.13.83<36315> with status=12 opcode=32698 len=32696 ...
//   root@ds-ml-01-0:~/nccl-tests# mpirun -x NCCL_SOCKET_IFNAME=lo -np 2 ./build/all_reduce_perf
//   export NCCL_P2P_DISABLE=1
//                   ACSCtl: SrcValid+ TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- ...  (lspci
//                   -vvv)
#include "base/text.h"
#include "ingest/nccl_log/kinds.h"

namespace commdx::ingest::nccl_log {

namespace {

struct ErrorName {
  std::string_view text;
  int code;
};
constexpr ErrorName kErrorNames[] = {
    {"ncclUnhandledCudaError", 1},
    {"ncclSystemError", 2},
    {"ncclInternalError", 3},
    {"ncclInvalidArgument", 4},
    {"ncclInvalidUsage", 5},
    {"ncclRemoteError", 6},
    {"unhandled cuda error", 1},
    {"unhandled system error", 2},
    {"remote process exited or there was a network error", 6},
};

bool IsNameChar(char c) { return (c >= 'A' && c <= 'Z') || IsDigit(c) || c == '_'; }

// "NCCL_X=value" assignments in a pasted command line or script.
bool ParseAssignments(std::string_view s, const LineInfo& li, Builder& b) {
  bool any = false;
  size_t pos = 0;
  while ((pos = s.find("NCCL_", pos)) != std::string_view::npos) {
    bool boundary = pos == 0 || s[pos - 1] == ' ' || s[pos - 1] == '"' || s[pos - 1] == '\'' ||
                    s[pos - 1] == '\t';
    size_t end = pos + 5;
    while (end < s.size() && IsNameChar(s[end])) ++end;
    if (!boundary || end >= s.size() || s[end] != '=') {
      pos = end;
      continue;
    }
    std::string_view name = s.substr(pos, end - pos);
    size_t vend = end + 1;
    while (vend < s.size() && !IsSpace(s[vend]) && s[vend] != '"' && s[vend] != '\'' &&
           s[vend] != ';')
      ++vend;
    std::string_view value = s.substr(end + 1, vend - end - 1);
    while (!value.empty() && (value.back() == ',' || value.back() == '.' || value.back() == ')' ||
                              value.back() == ':'))
      value.remove_suffix(1);  // prose: "with NCCL_ALGO=Tree, NCCL ..."
    pos = vend;
    if (StartsWith(name, "NCCL_DEBUG") || value.empty()) continue;
    b.AddOverride(li, name, value, true);
    any = true;
  }
  return any;
}

}  // namespace

bool ParseForeign(const LineInfo& li, Builder& b, ForeignState& state) {
  std::string_view s = Trim(StripLauncherPrefix(li.raw));
  if (state.expect_last_error) {
    state.expect_last_error = false;
    if (!s.empty()) {
      b.AddWarning(li, s, true);
      return true;
    }
  }
  if (s.empty()) return false;
  bool any = false;
  if (s.find("rror") != std::string_view::npos) {
    size_t last = s.find("Last error:");
    if (last != std::string_view::npos) {
      std::string_view rest = Trim(s.substr(last + 11));
      if (rest.empty())
        state.expect_last_error = true;
      else
        b.AddWarning(li, rest, true);
      any = true;
    }
    for (const auto& e : kErrorNames) {
      if (Contains(s, e.text)) {
        b.AddNote(li, "nccl_error_code", e.text, e.code);
        any = true;
        break;
      }
    }
  }
  // NCCL's IB transport's completion error without its "NCCL WARN" prefix (a pasted excerpt,
  // or a plugin's own print): "NET/IBP:Got completion from peer 7.6.13.83<36315> with
  // status=12 opcode=32698 len=32696 vendor err 129 (Send)" (NVIDIA/nccl#1664).
  if (!any && Contains(s, "Got completion from peer") && Contains(s, "status=")) {
    b.CountNcclLine(li);  // NCCL's own words: the file holds NCCL output
    b.AddWarning(li, s.substr(s.find("Got completion")), true);
    any = true;
  }
  if (s.find("NCCL_") != std::string_view::npos && ParseAssignments(s, li, b)) any = true;
  if (StartsWith(s, "ACSCtl:") && Contains(s, "SrcValid+")) {
    b.AddNote(li, "acs_srcvalid", s);
    any = true;
  }
  return any;
}

}  // namespace commdx::ingest::nccl_log
