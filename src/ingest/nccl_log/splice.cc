#include "ingest/nccl_log/splice.h"

#include <optional>

#include "base/text.h"
#include "ingest/nccl_log/builder_impl.h"

namespace commdx::ingest::nccl_log {

std::string_view Builder::KnownHostSuffix(std::string_view glued, int64_t pid, bool any_pid) const {
  if (impl_->last_state != kNone) {  // most lines: the process of the line before
    const NcclProcess& p = impl_->procs[impl_->states[impl_->last_state].proc];
    if (p.pid == pid && p.host == glued) return glued;
  }
  // Only the lengths some known host has are tried, longest first: a few lookups per token,
  // however long the glued text.
  const std::string tail = '\n' + std::to_string(pid);
  for (int pass = 0; pass < (any_pid ? 2 : 1); ++pass)
    for (auto n = impl_->host_lengths.rbegin(); n != impl_->host_lengths.rend(); ++n) {
      if (*n > glued.size()) continue;
      std::string_view host = glued.substr(glued.size() - *n);
      if (!impl_->hosts.count(host)) continue;
      if (pass == 1 || impl_->state_by_key.count(std::string(host) + tail)) return host;
    }
  return {};
}

namespace {

// A pid, tid or device: digits only (ParseInt alone takes a sign), and few enough for int64_t.
std::optional<int64_t> Number(std::string_view s) {
  if (s.empty() || !IsDigit(s[0])) return std::nullopt;
  return ParseInt(s);
}

bool HostChar(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '.' ||
         c == '_';
}

// "glued:pid:tid": the glued host and the pid; false if `tok` is not of that shape.
bool HostPidTid(std::string_view tok, std::string_view& glued, int64_t& pid) {
  size_t c2 = tok.rfind(':');
  if (c2 == std::string_view::npos || c2 == 0 || !Number(tok.substr(c2 + 1))) return false;
  size_t c1 = tok.rfind(':', c2 - 1);
  if (c1 == std::string_view::npos || c1 == 0) return false;
  std::optional<int64_t> p = Number(tok.substr(c1 + 1, c2 - c1 - 1));
  if (!p) return false;
  glued = tok.substr(0, c1);
  pid = *p;
  return true;
}

// The start of "host:pid:tid [dev] [file:line] " ending at `end` (the "NCCL" of the level word)
// inside `text`, the host glued to whatever precedes it; npos if `text` does not end so. Only
// the 512 characters before `end` are looked at (a prefix is far shorter): a line of many
// "NCCL INFO" costs linear time.
size_t PrefixStart(std::string_view text, size_t end, bool warn, const Builder& b) {
  const size_t lo = end > 512 ? end - 512 : 0;
  std::string_view left = TrimRight(text.substr(lo, end - lo));
  if (warn) {  // "[0] misc/shmutils.cc:112 NCCL WARN"
    size_t sp = left.rfind(' ');
    if (sp != std::string_view::npos && left.back() != ']') left = TrimRight(left.substr(0, sp));
  }
  if (left.size() < 4 || left.back() != ']') return std::string_view::npos;
  size_t open = left.find_last_of("[ ", left.size() - 2);
  if (open == std::string_view::npos || open == 0 || left[open] != '[' || left[open - 1] != ' ' ||
      !Number(left.substr(open + 1, left.size() - open - 2)))
    return std::string_view::npos;
  left = left.substr(0, open - 1);
  size_t sp = left.rfind(' ');
  size_t tok_at = sp == std::string_view::npos ? 0 : sp + 1;
  std::string_view glued;
  int64_t pid;
  if (!HostPidTid(left.substr(tok_at), glued, pid)) return std::string_view::npos;
  std::string_view host = b.KnownHostSuffix(glued, pid, /*any_pid=*/true);
  if (host.empty()) {  // a process not seen yet: the host name characters at the end
    size_t i = glued.size();
    while (i > 0 && HostChar(glued[i - 1])) --i;
    host = glued.substr(i);
    if (host.empty()) return std::string_view::npos;
  }
  return lo + tok_at + glued.size() - host.size();
}

}  // namespace

Splice FindSplice(std::string_view line, const LineInfo& li, const Builder& b) {
  // Text glued before the line's own host: a known process (host, pid) the token ends with,
  // while the whole token is not one.
  if (!li.host.empty() && li.pid > 0) {
    std::string_view known = b.KnownHostSuffix(li.host, li.pid, /*any_pid=*/false);
    if (!known.empty() && known.size() < li.host.size())
      return {static_cast<size_t>(known.data() - line.data()), false};
  }
  // A second prefix inside the message.
  if (li.msg.empty() || li.level == Level::kBare || li.weak) return {};
  const size_t msg_at = static_cast<size_t>(li.msg.data() - line.data());
  for (size_t pos = line.find("NCCL ", msg_at); pos != std::string_view::npos;
       pos = line.find("NCCL ", pos + 5)) {
    std::string_view level = line.substr(pos + 5, 5);
    bool warn = level == "WARN ";
    if (!warn && level != "INFO ") continue;
    size_t at = PrefixStart(line.substr(msg_at), pos - msg_at, warn, b);
    if (at != std::string_view::npos) return {msg_at + at, true};
  }
  return {};
}

}  // namespace commdx::ingest::nccl_log
