// Values of event fields read straight from the bytes of a part (see json_scan.h for the
// cursor). Each reader takes the first byte of a value and returns past the whole value, or
// nullptr on broken JSON. A value of an unexpected type is a bad record, never a broken file:
// strings read from numbers give their text, numbers read from strings parse the string's
// content, and a container read as a scalar is its opening byte (as simdjson's raw token was).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "ingest/kineto/json/json_scan.h"

namespace commdx::ingest::kineto {

// µs as Kineto writes them (1727000000123456, 12345.678, -5.5, 1.7e15) to integer ns, exact for
// up to three decimals. False if the token is not a number (NaN, null, text).
bool ParseMicrosToNs(std::string_view token, int64_t& ns);

// A token (see JsonScan::Token) as an integer: from_chars on its text (quotes removed), then
// as a double truncated; `fallback` if neither reads or the double is out of int64's range.
int64_t IntFromToken(std::string_view tok, int64_t fallback);

namespace detail {
inline bool IsDigit(char c) { return static_cast<unsigned char>(c - '0') < 10; }
const char* ReadMicrosSlow(JsonScan& s, const char* p, int64_t& ns, bool& ok);
const char* ReadIntSlow(JsonScan& s, const char* p, int64_t& out, int64_t fallback);

// How many of the 8 bytes at p are leading ASCII digits (p is padded: 8 bytes are readable),
// and their value.
inline int LeadingDigits8(const char* p, uint64_t& value) {
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  int n = JsonScan::DigitRun8(p);
  if (n == 0) return 0;
  uint64_t w;
  std::memcpy(&w, p, 8);
  // The n digits as byte values, moved to the top so that the bytes below are leading zeros.
  uint64_t d = (w & (0x0F * kOnes)) << (8 * (8 - n));
  d = (d * 10 + (d >> 8)) & 0x00FF00FF00FF00FFull;      // pairs of digits
  d = (d * 100 + (d >> 16)) & 0x0000FFFF0000FFFFull;    // groups of four
  d = (d * 10000 + (d >> 32)) & 0x00000000FFFFFFFFull;  // all eight
  value = d;
  return n;
}

inline constexpr uint64_t kPow10[9] = {1,      10,      100,      1000,     10000,
                                       100000, 1000000, 10000000, 100000000};
}  // namespace detail

//   "ts": 5160728064596.329, "dur": 106.799,
// The common form (digits, an optional fraction) is read here in one pass; anything else
// (exponents, 18+ digits, strings, null) goes through ParseMicrosToNs on its token.
__attribute__((always_inline)) inline const char* ReadMicros(JsonScan& s, const char* p,
                                                             int64_t& ns, bool& ok) {
  constexpr int64_t kMaxMicros = 9'200'000'000'000'000;  // as in ParseMicrosToNs
  const char* q = p;
  bool neg = *q == '-';  // readable: the part is padded
  q += neg;
  // Whole µs: up to 17 digits, 8 at a time (the padding makes the loads safe; the end of the
  // part is checked once after). Epoch µs have 16.
  uint64_t digits_value = 0;
  int n = detail::LeadingDigits8(q, digits_value);
  if (n == 0) return detail::ReadMicrosSlow(s, p, ns, ok);
  q += n;
  if (n == 8) {
    uint64_t v = 0;
    n = detail::LeadingDigits8(q, v);
    digits_value = digits_value * detail::kPow10[n] + v;
    q += n;
    if (n == 8 && detail::IsDigit(*q)) {  // a 17th digit; an 18th goes the slow way
      digits_value = digits_value * 10 + static_cast<uint64_t>(*q - '0');
      ++q;
      if (detail::IsDigit(*q)) return detail::ReadMicrosSlow(s, p, ns, ok);
    }
  }
  const int64_t whole = static_cast<int64_t>(digits_value);  // < 10^17
  int64_t frac = 0;
  bool round_up = false;
  if (*q == '.') {
    ++q;
    uint64_t v = 0;
    n = detail::LeadingDigits8(q, v);
    if (n == 8) return detail::ReadMicrosSlow(s, p, ns, ok);  // 8+ decimals: rare, exact below
    // The first three decimals (padded with zeros to three), the fourth rounds.
    if (n <= 3) {
      frac = static_cast<int64_t>(v * detail::kPow10[3 - n]);
    } else {
      frac = static_cast<int64_t>(v / detail::kPow10[n - 3]);
      round_up = (v / detail::kPow10[n - 4]) % 10 >= 5;
    }
    q += n;
  }
  if (q > s.end() || (q < s.end() && JsonScan::IsScalarByte(*q)))
    return detail::ReadMicrosSlow(s, p, ns, ok);
  if (whole >= kMaxMicros) {
    ok = false;
    return q;
  }
  ns = whole * 1000 + frac + (round_up ? 1 : 0);
  if (neg) ns = -ns;
  ok = true;
  return q;
}

//   "External id": 1025,   "stream": 7,   "correlation": 22417,
inline const char* ReadInt(JsonScan& s, const char* p, int64_t& out, int64_t fallback = -1) {
  uint64_t v = 0;
  int n = detail::LeadingDigits8(p, v);  // ids have up to 7 digits: one step (p is padded)
  const char* q = p + n;
  if (n == 8) {
    while (q < s.end() && detail::IsDigit(*q) && q - p < 18)
      v = v * 10 + static_cast<uint64_t>(*q++ - '0');
  }
  if (n == 0 || q > s.end() || (q < s.end() && JsonScan::IsScalarByte(*q)))
    return detail::ReadIntSlow(s, p, out, fallback);
  out = static_cast<int64_t>(v);
  return q;
}

// The raw content of a string value between its quotes, escapes as written (names are
// unescaped once per distinct name by the interner; keywords never hold escapes).
__attribute__((always_inline)) inline const char* ReadRawStr(JsonScan& s, const char* p,
                                                             std::string_view& out) {
  if (p < s.end() && *p == '"') {
    const char* q = s.StringEnd(p + 1);
    if (!q) return nullptr;
    out = std::string_view(p + 1, q - p - 1);
    return q + 1;
  }
  const char* after = nullptr;
  out = s.Token(p, after);
  return after;
}

// A string value, unescaped into `scratch` only if it has escapes (and they are valid: if not,
// the raw content, as simdjson's failed get_string left it); other values as their text.
const char* ReadStr(JsonScan& s, const char* p, std::string_view& out, std::string& scratch);

// A list written as a JSON array or as a string "[0, 1]": an array is flattened to its items'
// tokens joined by ',' ("0,1") in `scratch`; anything else is read as ReadStr.
const char* ReadList(JsonScan& s, const char* p, std::string_view& out, std::string& scratch);

// "grid": [24, 1, 1] -> 24 (left as is if the value is not an array or is empty).
const char* ReadFirstInt(JsonScan& s, const char* p, int64_t& out);

}  // namespace commdx::ingest::kineto
