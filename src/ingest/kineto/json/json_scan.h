// A cursor over one part of traceEvents for the project's own event scanner: whitespace, string
// ends, scalar tokens and depth-aware skipping of values, each bounded by the end of the part.
// Strings and whitespace are found 16 bytes at a time (SSE2); skipping a whole value classifies
// 64 bytes at a time (json_scan.cc: AVX-512BW or AVX2 where the CPU has it, chosen once at
// start-up, else SSE2). Strings with non-ASCII bytes are checked as UTF-8 by
// simdjson::validate_utf8.
//
// The part is `[` events `]` at [begin, end), readable up to 64 bytes past `end` (the reader pads
// it, or the mapped file goes on): loads of up to 64 bytes may start anywhere before `end`, but
// nothing at or past `end` is ever taken as input. Errors keep the place they were found.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace commdx::ingest::kineto {

enum class ScanError : uint8_t {
  kNone,
  kEnd,              // the part ends inside a value (a cut inside an event, or truncated input)
  kUnterminated,     // a string runs past the end of the part
  kControlChar,      // a raw byte below 0x20 inside a string (JSON requires it escaped)
  kBadUtf8,          // a string that is not UTF-8
  kExpectedValue,    // not the start of any JSON value
  kExpectedColon,    // after a key
  kExpectedKey,      // an object member that does not start with '"'
  kExpectedComma,    // between members or items
  kBracketMismatch,  // '[' closed by '}' or the reverse
  kTooDeep,          // nesting past kMaxDepth
};

const char* ScanErrorText(ScanError e);

class JsonScan {
 public:
  static constexpr int kMaxDepth = 1024;  // simdjson's default, so the same inputs nest too deep

  explicit JsonScan(const char* end) : end_(end) {}

  const char* end() const { return end_; }
  ScanError error() const { return err_; }
  const char* error_at() const { return err_at_; }

  // Returns nullptr after recording the first error; later errors keep the first.
  const char* Fail(ScanError e, const char* at) {
    if (err_ == ScanError::kNone) {
      err_ = e;
      err_at_ = at;
    }
    return nullptr;
  }

  // One bit test each instead of a chain of compares (the scanner asks these for most bytes
  // between values).
  static bool IsWs(char c) {
    constexpr uint64_t kWs = (uint64_t{1} << ' ') | (uint64_t{1} << '\n') | (uint64_t{1} << '\r') |
                             (uint64_t{1} << '\t');
    auto u = static_cast<unsigned char>(c);
    return u <= ' ' && ((kWs >> u) & 1) != 0;
  }
  // Bytes a number or literal token is made of (anything else ends it): 0-9 a-z A-Z - + .
  static bool IsScalarByte(char c) {
    constexpr uint64_t kLow = (uint64_t{0x3FF} << '0') | (uint64_t{1} << '-') |
                              (uint64_t{1} << '+') | (uint64_t{1} << '.');
    constexpr uint64_t kHigh =
        (uint64_t{0x3FFFFFF} << ('A' - 64)) | (uint64_t{0x3FFFFFF} << ('a' - 64));
    auto u = static_cast<unsigned char>(c);
    if (u >= 128) return false;
    return (((u < 64 ? kLow : kHigh) >> (u & 63)) & 1) != 0;
  }

  // Kineto writes `, "key"` and `,\n    "key"`: one byte is tested first, longer runs 16 bytes
  // at a time (the part is padded, so the loads are safe; nothing past `end_` is returned).
  const char* SkipWs(const char* p) const {
    if (p >= end_ || !IsWs(*p)) return p;
    ++p;
    if (p >= end_ || !IsWs(*p)) return p;
#if defined(__SSE2__)
    const __m128i sp = _mm_set1_epi8(' '), nl = _mm_set1_epi8('\n');
    const __m128i cr = _mm_set1_epi8('\r'), tab = _mm_set1_epi8('\t');
    while (p < end_) {
      __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      __m128i ws = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, nl)),
                                _mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmpeq_epi8(v, tab)));
      unsigned other = ~static_cast<unsigned>(_mm_movemask_epi8(ws)) & 0xFFFFu;
      if (other != 0) {
        p += __builtin_ctz(other);
        return p < end_ ? p : end_;
      }
      p += 16;
    }
    return end_;
#else
    while (p < end_ && IsWs(*p)) ++p;
    return p;
#endif
  }

  // `p` just after an opening quote: the closing quote, or nullptr. Every string of the part
  // passes through here, which is what keeps the part UTF-8 checked (bytes outside strings must
  // be ASCII to be accepted at all).
  const char* StringEnd(const char* p) {
    const char* start = p;
    bool non_ascii = false;
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
    const __m128i ctl = _mm_set1_epi8(0x1f);
    while (p < end_) {
      __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      __m128i special = _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash));
      special = _mm_or_si128(special, _mm_cmpeq_epi8(_mm_min_epu8(v, ctl), v));  // v <= 0x1f
      unsigned m = static_cast<unsigned>(_mm_movemask_epi8(special));
      unsigned hi = static_cast<unsigned>(_mm_movemask_epi8(v));
      if (m == 0) {
        non_ascii |= hi != 0;
        p += 16;
        continue;
      }
      unsigned at = static_cast<unsigned>(__builtin_ctz(m));
      non_ascii |= (hi & ((1u << at) - 1)) != 0;
      p += at;
      if (p >= end_) break;
      if (*p == '"') return non_ascii ? CheckUtf8(start, p) : p;
      if (*p != '\\') return Fail(ScanError::kControlChar, p);
      p += 2;  // the escaped byte cannot end the string
    }
#else
    for (; p < end_; ++p) {
      unsigned char c = static_cast<unsigned char>(*p);
      if (c == '"') return non_ascii ? CheckUtf8(start, p) : p;
      if (c == '\\') {
        ++p;
      } else if (c < 0x20) {
        return Fail(ScanError::kControlChar, p);
      } else {
        non_ascii |= c >= 0x80;
      }
    }
#endif
    return Fail(ScanError::kUnterminated, start - 1);
  }

  // How many of the 8 bytes at p are leading ASCII digits (8 bytes must be readable). A byte is
  // a digit if its high nibble is 3 and its low one, plus 6, does not carry into the high
  // nibble; a carry out of a byte only reaches later bytes, which do not count.
  static int DigitRun8(const char* p) {
    constexpr uint64_t kOnes = 0x0101010101010101ull;
    uint64_t w;
    std::memcpy(&w, p, 8);
    uint64_t bad = ((w & (0xF0 * kOnes)) ^ (0x30 * kOnes)) |
                   (((w + 0x06 * kOnes) & (0xF0 * kOnes)) ^ (0x30 * kOnes));
    return bad ? __builtin_ctzll(bad) / 8 : 8;
  }

  // The end of a number or literal starting at `p` (== p if `p` starts none). Digits are
  // skipped 8 at a time first (the bytes past `end_` may be the mapped file's: never counted).
  const char* ScalarEnd(const char* p) const {
    for (int n = 8; n == 8 && p < end_; p += n) n = DigitRun8(p);
    if (p > end_) p = end_;
    while (p < end_ && IsScalarByte(*p)) ++p;
    return p;
  }

  // Past the value starting at `p` (a string, scalar, object or array), or nullptr.
  const char* SkipValue(const char* p) {
    if (p >= end_) return Fail(ScanError::kEnd, p);
    char c = *p;
    if (c == '"') {
      const char* q = StringEnd(p + 1);
      return q ? q + 1 : nullptr;
    }
    if (c == '{' || c == '[') return SkipRest(p + 1, c);
    const char* q = ScalarEnd(p);
    return q == p ? Fail(ScanError::kExpectedValue, p) : q;
  }

  // `p` inside a container opened by `open` ('{' or '['): past its closing bracket, or nullptr.
  // Brackets are matched by kind; what lies between them is checked only as far as strings go
  // (as simdjson ondemand does for a value it skips).
  const char* SkipRest(const char* p, char open);
  // How SkipRest classifies a 64-byte block: four 16-byte loads, two 32-byte ones (AVX2) or one
  // of 64 bytes (AVX-512BW). The widest the CPU has is picked once at start-up.
  enum class Simd : uint8_t { kSse2, kAvx2, kAvx512 };
  static Simd BestSimd();
  // SkipRest with the given width, which the CPU must have (tests compare the widths).
  const char* SkipRestWith(Simd simd, const char* p, char open);
  // SkipRest's body, for json_scan.cc only.
  template <Simd kSimd>
  const char* SkipRestBody(const char* p, char open);

  // A scalar or string token at `p` as text (strings with their quotes); a container is its
  // opening byte, like simdjson's raw_json_token. `after` is set past the whole value.
  std::string_view Token(const char* p, const char*& after) {
    if (p >= end_) {
      after = Fail(ScanError::kEnd, p);
      return {};
    }
    if (*p == '"') {
      const char* q = StringEnd(p + 1);
      after = q ? q + 1 : nullptr;
      return q ? std::string_view(p, q + 1 - p) : std::string_view();
    }
    after = SkipValue(p);
    if (!after) return {};
    if (*p == '{' || *p == '[') return std::string_view(p, 1);
    return std::string_view(p, after - p);
  }

 private:
  const char* CheckUtf8(const char* begin, const char* close);

  const char* end_;
  ScanError err_ = ScanError::kNone;
  const char* err_at_ = nullptr;
};

// Bytes a file writes the same way between many pairs of tokens — `, ` between members, `,\n    `
// between indented events, `, "cat": ` between two members in Kineto's order — kept once they
// have been parsed the slow way, so that later ones are matched by one compare. Up to 32 bytes;
// 0 matches nothing.
struct Gap {
  char bytes[32] = {};
  uint8_t len = 0;

  // Keeps [from, to), or nothing where it is longer than 32 bytes.
  void Set(const char* from, const char* to) {
    auto n = static_cast<size_t>(to - from);
    if (n > sizeof(bytes)) n = 0;
    std::memcpy(bytes, from, n);
    len = static_cast<uint8_t>(n);
  }
  // The `len` bytes at p are this gap's (32 bytes at p must be readable).
  bool At(const char* p) const {
#if defined(__SSE2__)
    auto same16 = [](const char* a, const char* b) {
      __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a));
      __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b));
      return static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, y)));
    };
    if (len <= 16) {  // Kineto's own and the compact layouts
      uint32_t need = (uint32_t{1} << len) - 1;
      return len != 0 && (same16(p, bytes) & need) == need;
    }
    uint32_t same = same16(p, bytes) | same16(p + 16, bytes + 16) << 16;
    uint32_t need = len >= 32 ? ~uint32_t{0} : (uint32_t{1} << len) - 1;
    return (same & need) == need;
#else
    return len != 0 && std::memcmp(p, bytes, len) == 0;
#endif
  }
};

// The value at `p` must be followed by ',' (returns past it, ws skipped, `closed` false) or by
// `close` (returns past it, `closed` true).
inline const char* NextMember(JsonScan& s, const char* p, char close, bool& closed) {
  uint16_t two;
  std::memcpy(&two, p, 2);  // the part is padded
  constexpr uint16_t kCommaSpace = ',' | (' ' << 8);
  if (two == kCommaSpace && p + 2 < s.end() && !JsonScan::IsWs(p[2])) {  // `, "next"`
    closed = false;
    return p + 2;
  }
  p = s.SkipWs(p);
  if (p >= s.end()) return s.Fail(ScanError::kEnd, p);
  if (*p == ',') {
    closed = false;
    return s.SkipWs(p + 1);
  }
  if (*p == close) {
    closed = true;
    return p + 1;
  }
  return s.Fail(ScanError::kExpectedComma, p);
}

// From the '"' of a key, the first byte of its value (after ':' and ws), or nullptr.
inline const char* AfterColon(JsonScan& s, const char* close_quote) {
  const char* p = close_quote + 1;
  uint16_t two;
  std::memcpy(&two, p, 2);  // the part is padded
  constexpr uint16_t kColonSpace = ':' | (' ' << 8);
  if (two == kColonSpace && p + 2 < s.end()) {  // Kineto writes `"key": value`
    if (!JsonScan::IsWs(p[2])) return p + 2;
    return s.SkipWs(p + 2);  // `"grid":     [...]`, as ROCm's tracer aligns values
  }
  p = s.SkipWs(p);
  if (p >= s.end()) return s.Fail(ScanError::kEnd, p);
  if (*p != ':') return s.Fail(ScanError::kExpectedColon, p);
  return s.SkipWs(p + 1);
}

}  // namespace commdx::ingest::kineto
