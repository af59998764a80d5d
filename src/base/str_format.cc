#include "base/str_format.h"

#include <charconv>
#include <cmath>
#include <cstdint>
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

namespace {

constexpr double kPow10[] = {1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
constexpr uint64_t kPow10Int[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
                                  100000000, 1000000000};

// |v| with `decimals` digits as printf writes them, through integers, where that is sure to
// agree: below 2^52 every half (k + 0.5) is a double and rounding is monotonic, so the computed
// |v| * 10^decimals lies on the same side of a half as the exact product, or on it. Only a
// product that came out a half exactly (an exact half, which printf rounds to even, or a
// product rounded onto one) is in doubt; it, NaN, infinities and large values are left to the
// caller (false).
bool AppendFixedByInteger(std::string& out, double v, int decimals) {
  if (decimals < 0 || decimals > 9) return false;
  const double scaled = std::fabs(v) * kPow10[decimals];
  if (!(scaled < 4503599627370496.0)) return false;  // 2^52; NaN fails too
  const double whole = std::floor(scaled);
  const double frac = scaled - whole;  // exact
  if (frac == 0.5) return false;
  const uint64_t n = static_cast<uint64_t>(whole) + (frac > 0.5 ? 1 : 0);
  char buf[32];
  char* p = buf;
  if (std::signbit(v)) *p++ = '-';  // printf writes -0.00 for -0.001 and for -0.0
  const uint64_t unit = kPow10Int[decimals];
  p = std::to_chars(p, buf + sizeof buf, n / unit).ptr;
  if (decimals > 0) {
    *p++ = '.';
    uint64_t f = n % unit;
    for (int i = decimals - 1; i >= 0; --i, f /= 10) p[i] = static_cast<char>('0' + f % 10);
    p += decimals;
  }
  out.append(buf, p);
  return true;
}

}  // namespace

void AppendFixed(std::string& out, double v, int decimals) {
  if (AppendFixedByInteger(out, v, decimals)) return;
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
