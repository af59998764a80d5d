#include "ingest/kineto/json/json_values.h"

#include <charconv>
#include <cmath>
#include <cstring>

#include "ingest/trace_build/unescape.h"

namespace commdx::ingest::kineto {

bool ParseMicrosToNs(std::string_view tok, int64_t& ns) {
  // Times past about the year 2262 do not fit int64 ns: such an event is bad, not wrapped around.
  constexpr int64_t kMaxMicros = 9'200'000'000'000'000;
  if (tok.size() >= 2 && tok.front() == '"') tok = tok.substr(1, tok.size() - 2);
  const char* p = tok.data();
  const char* e = p + tok.size();
  bool neg = p < e && *p == '-';
  if (neg) ++p;
  const char* digits = p;
  int64_t whole = 0;
  while (p < e && detail::IsDigit(*p) && p - digits < 17) whole = whole * 10 + (*p++ - '0');
  if (p == digits) return false;
  int64_t frac = 0;
  int frac_digits = 0;
  bool round_up = false;
  if (p < e && *p == '.') {
    ++p;
    for (; p < e && detail::IsDigit(*p); ++p) {
      if (frac_digits < 3) {
        frac = frac * 10 + (*p - '0');
        ++frac_digits;
      } else if (frac_digits == 3) {
        round_up = *p >= '5';
        ++frac_digits;
      }
    }
  }
  if (p < e && (*p == 'e' || *p == 'E' || detail::IsDigit(*p))) {
    double d = 0;
    auto [q, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), d);
    bool in_range = std::fabs(d) < static_cast<double>(kMaxMicros);  // false for NaN too
    if (ec != std::errc() || q != tok.data() + tok.size() || !in_range) return false;
    ns = std::llround(d * 1000.0);
    return true;
  }
  if (p != e || whole >= kMaxMicros) return false;
  for (int i = std::min(frac_digits, 3); i < 3; ++i) frac *= 10;
  ns = whole * 1000 + frac + (round_up ? 1 : 0);
  if (neg) ns = -ns;
  return true;
}

int64_t IntFromToken(std::string_view tok, int64_t fallback) {
  if (!tok.empty() && tok.front() == '"') tok = tok.substr(1, tok.size() >= 2 ? tok.size() - 2 : 0);
  int64_t out = 0;
  auto [p, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), out);
  if (ec == std::errc() && p != tok.data()) return out;
  double d = 0;
  auto [p2, ec2] = std::from_chars(tok.data(), tok.data() + tok.size(), d);
  // 9.2e18 < 2^63: a double past it has no int64 value (the cast would be undefined).
  if (ec2 != std::errc() || p2 == tok.data() || !(std::fabs(d) < 9.2e18)) return fallback;
  return static_cast<int64_t>(d);
}

namespace detail {

const char* ReadMicrosSlow(JsonScan& s, const char* p, int64_t& ns, bool& ok) {
  const char* after = nullptr;
  std::string_view tok = s.Token(p, after);
  if (!after) return nullptr;
  ok = ParseMicrosToNs(tok, ns);
  return after;
}

const char* ReadIntSlow(JsonScan& s, const char* p, int64_t& out, int64_t fallback) {
  const char* after = nullptr;
  std::string_view tok = s.Token(p, after);
  if (!after) return nullptr;
  out = IntFromToken(tok, fallback);
  return after;
}

}  // namespace detail

namespace {

int Hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

int Hex4(std::string_view s, size_t at) {
  if (at + 4 > s.size()) return -1;
  int v = 0;
  for (size_t i = at; i < at + 4; ++i) {
    int d = Hex(s[i]);
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

// What JSON allows after '\': one of "\/bfnrt, or u with four hex digits; a high surrogate
// only with a low one after it, a low one never alone.
bool EscapesValid(std::string_view raw) {
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '\\') continue;
    if (++i >= raw.size()) return false;
    char e = raw[i];
    if (std::strchr("\"\\/bfnrt", e) != nullptr && e != '\0') continue;
    if (e != 'u') return false;
    int cp = Hex4(raw, i + 1);
    if (cp < 0 || (cp >= 0xDC00 && cp < 0xE000)) return false;
    i += 4;
    if (cp >= 0xD800 && cp < 0xDC00) {
      if (i + 2 >= raw.size() || raw[i + 1] != '\\' || raw[i + 2] != 'u') return false;
      int lo = Hex4(raw, i + 3);
      if (lo < 0xDC00 || lo >= 0xE000) return false;
      i += 6;
    }
  }
  return true;
}

}  // namespace

const char* ReadStr(JsonScan& s, const char* p, std::string_view& out, std::string& scratch) {
  if (p >= s.end() || *p != '"') {
    const char* after = nullptr;
    out = s.Token(p, after);
    return after;
  }
  const char* q = s.StringEnd(p + 1);
  if (!q) return nullptr;
  std::string_view inner(p + 1, q - p - 1);
  out = inner;
  if (std::memchr(inner.data(), '\\', inner.size()) != nullptr && EscapesValid(inner)) {
    scratch = trace_build::JsonUnescape(inner);
    out = scratch;
  }
  return q + 1;
}

//   "Process Group Ranks": [0, 1]      "In split size": "[]"
const char* ReadList(JsonScan& s, const char* p, std::string_view& out, std::string& scratch) {
  if (p >= s.end() || *p != '[') return ReadStr(s, p, out, scratch);
  scratch.clear();
  p = s.SkipWs(p + 1);
  if (p < s.end() && *p == ']') {
    out = scratch;
    return p + 1;
  }
  bool closed = false;
  while (!closed) {
    const char* after = nullptr;
    std::string_view tok = s.Token(p, after);
    if (!after) return nullptr;
    if (!scratch.empty()) scratch += ',';
    scratch += tok;
    p = NextMember(s, after, ']', closed);
    if (!p) return nullptr;
  }
  out = scratch;
  return p;
}

const char* ReadFirstInt(JsonScan& s, const char* p, int64_t& out) {
  if (p >= s.end() || *p != '[') return s.SkipValue(p);
  p = s.SkipWs(p + 1);
  if (p < s.end() && *p == ']') return p + 1;
  p = ReadInt(s, p, out, 0);
  return p ? s.SkipRest(p, '[') : nullptr;
}

}  // namespace commdx::ingest::kineto
