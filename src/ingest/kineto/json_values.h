// Values of event fields read straight from the bytes of a part (see json_scan.h for the
// cursor). Each reader takes the first byte of a value and returns past the whole value, or
// nullptr on broken JSON. A value of an unexpected type is a bad record, never a broken file:
// strings read from numbers give their text, numbers read from strings parse the string's
// content, and a container read as a scalar is its opening byte (as simdjson's raw token was).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ingest/kineto/json_scan.h"

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
}  // namespace detail

//   "ts": 5160728064596.329, "dur": 106.799,
// The common form (digits, an optional fraction) is read here in one pass; anything else
// (exponents, 18+ digits, strings, null) goes through ParseMicrosToNs on its token.
inline const char* ReadMicros(JsonScan& s, const char* p, int64_t& ns, bool& ok) {
  constexpr int64_t kMaxMicros = 9'200'000'000'000'000;  // as in ParseMicrosToNs
  const char* q = p;
  bool neg = q < s.end() && *q == '-';
  q += neg;
  const char* digits = q;
  int64_t whole = 0;
  while (q < s.end() && detail::IsDigit(*q) && q - digits < 17) whole = whole * 10 + (*q++ - '0');
  if (q == digits) return detail::ReadMicrosSlow(s, p, ns, ok);
  int64_t frac = 0;
  int frac_digits = 0;
  bool round_up = false;
  if (q < s.end() && *q == '.') {
    ++q;
    for (; q < s.end() && detail::IsDigit(*q); ++q) {
      if (frac_digits < 3) {
        frac = frac * 10 + (*q - '0');
        ++frac_digits;
      } else if (frac_digits == 3) {
        round_up = *q >= '5';
        ++frac_digits;
      }
    }
  }
  if (q < s.end() && JsonScan::IsScalarByte(*q)) return detail::ReadMicrosSlow(s, p, ns, ok);
  if (whole >= kMaxMicros) {
    ok = false;
    return q;
  }
  static constexpr int64_t kScale[4] = {1000, 100, 10, 1};
  ns = whole * 1000 + frac * kScale[frac_digits < 3 ? frac_digits : 3] + (round_up ? 1 : 0);
  if (neg) ns = -ns;
  ok = true;
  return q;
}

//   "External id": 1025,   "stream": 7,   "correlation": 22417,
inline const char* ReadInt(JsonScan& s, const char* p, int64_t& out, int64_t fallback = -1) {
  const char* q = p;
  int64_t v = 0;
  while (q < s.end() && detail::IsDigit(*q) && q - p < 18) v = v * 10 + (*q++ - '0');
  if (q == p || (q < s.end() && JsonScan::IsScalarByte(*q)))
    return detail::ReadIntSlow(s, p, out, fallback);
  out = v;
  return q;
}

// The raw content of a string value between its quotes, escapes as written (names are
// unescaped once per distinct name by the interner; keywords never hold escapes).
inline const char* ReadRawStr(JsonScan& s, const char* p, std::string_view& out) {
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
