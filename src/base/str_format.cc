#include "base/str_format.h"

#include <charconv>
#include <cstdio>

namespace commdx {

std::string StrFormatV(const char* fmt, va_list args) {
  // Most messages fit a small stack buffer: one pass. A longer one is measured by that pass and
  // formatted again into a string of the right size.
  char small[256];
  va_list again;
  va_copy(again, args);
  int n = std::vsnprintf(small, sizeof small, fmt, args);
  if (n < 0) {  // an encoding error: nothing sensible to show
    va_end(again);
    return {};
  }
  if (static_cast<size_t>(n) < sizeof small) {
    va_end(again);
    return std::string(small, static_cast<size_t>(n));
  }
  std::string out(static_cast<size_t>(n), '\0');
  std::vsnprintf(out.data(), out.size() + 1, fmt, again);
  va_end(again);
  return out;
}

std::string StrFormat(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::string out = StrFormatV(fmt, args);
  va_end(args);
  return out;
}

void AppendFixed(std::string& out, double v, int decimals) {
  char buf[128];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, decimals);
  if (r.ec == std::errc{}) {
    out.append(buf, r.ptr);
  } else {  // too long for the buffer (|v| >= 1e100 or so): printf sizes its own
    out += StrFormat("%.*f", decimals, v);
  }
}

std::string FormatFixed(double v, int decimals) {
  std::string out;
  AppendFixed(out, v, decimals);
  return out;
}

}  // namespace commdx
