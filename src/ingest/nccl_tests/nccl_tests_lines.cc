#include "ingest/nccl_tests/nccl_tests_lines.h"

#include <vector>

#include "base/text.h"

namespace commdx::ingest::nccl_tests {

std::string_view StripMpiTag(std::string_view s) {
  if (!s.empty() && s[0] == '[') {
    size_t p = s.find("]<stdout>:");
    if (p == s.npos) p = s.find("]<stderr>:");
    if (p != s.npos && p < 24) return s.substr(p + 10);
  }
  return s;
}

std::string_view StripRankTags(std::string_view s, std::string& buf) {
  if (s.find('[') == s.npos) return s;
  buf.clear();
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '[') {
      size_t j = i + 1;
      while (j < s.size() && IsDigit(s[j])) ++j;
      if (j > i + 1 && j < s.size() && s[j] == ']') {
        buf += ' ';
        i = j;
        continue;
      }
    }
    buf += s[i];
  }
  return buf;
}

std::string CaseFromBinary(std::string_view name) {
  name = Trim(name);
  size_t p = name.find("_perf");
  return std::string(p == name.npos ? name : name.substr(0, p));
}

// Files without "# Collective test starting:" (older nccl-tests, a pasted excerpt) name the test
// only in the command line.
std::string CaseFromCommandLine(std::string_view line) {
  for (std::string_view w : SplitWhitespace(line)) {
    size_t slash = w.find_last_of('/');
    if (slash != w.npos) w = w.substr(slash + 1);
    if (!EndsWith(w, "_perf") && !EndsWith(w, "_perf_mpi")) continue;
    std::string name = CaseFromBinary(w);
    if (!name.empty() && name[0] >= 'a' && name[0] <= 'z') return name;
  }
  return "";
}

bool IsTypeName(std::string_view word) {
  static constexpr std::string_view kTypes[] = {
      "int8",  "uint8",  "int32",    "uint32",   "int64",    "uint64", "half",
      "float", "double", "bfloat16", "fp8_e4m3", "fp8_e5m2", "char"};
  for (std::string_view t : kTypes)
    if (word == t) return true;
  return false;
}

bool LooksLikeRow(std::string_view line) {
  std::string buf;
  auto w = SplitWhitespace(StripRankTags(StripMpiTag(line), buf));
  return w.size() >= 11 && w.size() <= 13 && ParseInt(w[0]) && ParseInt(w[1]) && IsTypeName(w[2]);
}

}  // namespace commdx::ingest::nccl_tests
