#include "base/text.h"

#include <cmath>

#include "base/str_format.h"

namespace commdx {

std::string_view TrimLeft(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && IsSpace(s[i])) ++i;
  return s.substr(i);
}

std::string_view TrimRight(std::string_view s) {
  size_t n = s.size();
  while (n > 0 && IsSpace(s[n - 1])) --n;
  return s.substr(0, n);
}

std::string_view Trim(std::string_view s) { return TrimRight(TrimLeft(s)); }

bool ConsumePrefix(std::string_view& s, std::string_view p) {
  if (!StartsWith(s, p)) return false;
  s.remove_prefix(p.size());
  return true;
}

std::optional<int64_t> ParseInt(std::string_view s) {
  if (s.empty()) return std::nullopt;
  if (s.front() == '+') s.remove_prefix(1);
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<uint64_t> ParseHex(std::string_view s) {
  if (StartsWith(s, "0x") || StartsWith(s, "0X")) s.remove_prefix(2);
  if (s.empty()) return std::nullopt;
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<double> ParseDouble(std::string_view s) {
  if (s.empty()) return std::nullopt;
  if (s.front() == '+') s.remove_prefix(1);
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<uint64_t> ParseByteSize(std::string_view s) {
  if (!s.empty() && (s.back() == 'B' || s.back() == 'b')) s.remove_suffix(1);
  double scale = 1;
  if (!s.empty()) {
    switch (s.back()) {
      case 'k':
      case 'K':
        scale = 1024.0;
        break;
      case 'm':
      case 'M':
        scale = 1048576.0;
        break;
      case 'g':
      case 'G':
        scale = 1073741824.0;
        break;
      case 't':
      case 'T':
        scale = 1099511627776.0;
        break;
      default:
        break;
    }
    if (scale != 1) s.remove_suffix(1);
  }
  auto v = ParseDouble(s);
  // 1.8e19 is just under 2^64: a larger value would not fit the cast.
  if (!v || !(*v >= 0) || !(*v * scale <= 1.8e19)) return std::nullopt;
  return static_cast<uint64_t>(std::llround(*v * scale));
}

std::optional<int64_t> ConsumeInt(std::string_view& s) {
  size_t i = 0;
  if (i < s.size() && s[i] == '-') ++i;
  size_t start_digits = i;
  while (i < s.size() && IsDigit(s[i])) ++i;
  if (i == start_digits) return std::nullopt;
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + i, v);
  if (ec != std::errc()) return std::nullopt;
  s.remove_prefix(static_cast<size_t>(p - s.data()));
  return v;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

std::vector<std::string_view> SplitWhitespace(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && IsSpace(s[i])) ++i;
    size_t start = i;
    while (i < s.size() && !IsSpace(s[i])) ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

std::string JoinInts(const std::vector<int>& values, std::string_view sep,
                     std::string_view last_sep) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += i + 1 == values.size() ? last_sep : sep;
    out += std::to_string(values[i]);
  }
  return out;
}

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::string CutAtWord(std::string_view s, size_t width) {
  if (s.size() <= width) return std::string(s);
  size_t cut = s.rfind(' ', width);
  if (cut == s.npos || cut < width / 2) {
    cut = width;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // UTF-8
  }
  while (cut > 0 && (s[cut - 1] == ',' || s[cut - 1] == '.' || s[cut - 1] == ':')) --cut;
  return std::string(s.substr(0, cut)) + "...";
}

std::string SanitizeUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    // Printable ASCII, almost all of any name, is copied a run at a time.
    size_t run = i;
    while (run < s.size() && static_cast<unsigned char>(s[run] - 0x20) < 0x5f) ++run;
    out.append(s.data() + i, run - i);
    i = run;
    if (i == s.size()) break;
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      out.push_back((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f
                        ? '?'
                        : static_cast<char>(c));
      ++i;
      continue;
    }
    size_t len = (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    bool ok = len > 0 && i + len <= s.size();
    for (size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(s[i + k]) >> 6) == 0x2;
    if (ok) {
      out.append(s.substr(i, len));
      i += len;
    } else {
      out.push_back('?');
      ++i;
    }
  }
  return out;
}

std::string FormatBytes(double bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (std::fabs(bytes) >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  return StrFormat(u == 0 ? "%.0f %s" : "%.2f %s", bytes, kUnits[u]);
}

std::string FormatDurationNs(double ns) {
  if (std::fabs(ns) >= 1e9) return StrFormat("%.2f s", ns / 1e9);
  if (std::fabs(ns) >= 1e6) return StrFormat("%.2f ms", ns / 1e6);
  if (std::fabs(ns) >= 1e3) return StrFormat("%.1f us", ns / 1e3);
  return StrFormat("%.0f ns", ns);
}

void AppendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace commdx
