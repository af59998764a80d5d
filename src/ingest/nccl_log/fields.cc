// Small field readers shared by the line kinds.
#include "base/text.h"
#include "ingest/nccl_log/kinds.h"

namespace commdx::ingest::nccl_log {

namespace {

size_t FindWord(std::string_view s, std::string_view key) {
  size_t pos = 0;
  while ((pos = s.find(key, pos)) != std::string_view::npos) {
    bool start_ok = pos == 0 || s[pos - 1] == ' ';
    size_t end = pos + key.size();
    if (start_ok && end < s.size() && s[end] == ' ') return end + 1;
    pos = end;
  }
  return std::string_view::npos;
}

}  // namespace

int IntAfter(std::string_view s, std::string_view key) {
  size_t at = FindWord(s, key);
  if (at == std::string_view::npos) return -1;
  std::string_view rest = s.substr(at);
  auto v = ConsumeInt(rest);
  if (!v || *v < 0 || *v > 1 << 30) return -1;
  return static_cast<int>(*v);
}

std::string_view WordAfter(std::string_view s, std::string_view key) {
  size_t at = FindWord(s, key);
  if (at == std::string_view::npos) return {};
  std::string_view rest = s.substr(at);
  size_t end = rest.find(' ');
  return rest.substr(0, end);
}

std::string_view VersionNumber(std::string_view full) {
  // major.minor.patch, digits only; the suffix "+cuda12.3" is dropped.
  size_t i = 0, dots = 0;
  bool digit_run = false;
  while (i < full.size()) {
    char c = full[i];
    if (IsDigit(c)) {
      digit_run = true;
    } else if (c == '.' && digit_run && dots < 2) {
      ++dots;
      digit_run = false;
    } else {
      break;
    }
    ++i;
  }
  if (dots != 2 || !digit_run) return {};
  return full.substr(0, i);
}

}  // namespace commdx::ingest::nccl_log
