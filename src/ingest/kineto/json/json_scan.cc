#include "ingest/kineto/json/json_scan.h"

#include <simdjson.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace commdx::ingest::kineto {

const char* ScanErrorText(ScanError e) {
  switch (e) {
    case ScanError::kNone:
      return "no error";
    case ScanError::kEnd:
      return "the part ends inside a value";
    case ScanError::kUnterminated:
      return "unterminated string";
    case ScanError::kControlChar:
      return "unescaped control character in a string";
    case ScanError::kBadUtf8:
      return "the input is not valid UTF-8";
    case ScanError::kExpectedValue:
      return "expected a JSON value";
    case ScanError::kExpectedColon:
      return "expected ':' after an object key";
    case ScanError::kExpectedKey:
      return "expected a '\"' key in an object";
    case ScanError::kExpectedComma:
      return "expected ',' or the end of the object or array";
    case ScanError::kBracketMismatch:
      return "a closing bracket does not match its opening one";
    case ScanError::kTooDeep:
      return "nested deeper than 1024 levels";
  }
  return "invalid JSON";
}

namespace {

// Length of the UTF-8 sequence at p (p < e), or 0 if it is not a valid one (overlong forms,
// surrogates and code points past U+10FFFF included, as the standard says).
size_t Utf8Seq(const unsigned char* p, const unsigned char* e) {
  unsigned c = p[0];
  if (c < 0x80) return 1;
  auto cont = [&](size_t i) { return p + i < e && (p[i] & 0xC0) == 0x80; };
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    if (c == 0xE0 && p[1] < 0xA0) return 0;   // overlong
    if (c == 0xED && p[1] >= 0xA0) return 0;  // UTF-16 surrogates
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    if (c == 0xF0 && p[1] < 0x90) return 0;   // overlong
    if (c == 0xF4 && p[1] >= 0x90) return 0;  // past U+10FFFF
    return 4;
  }
  return 0;
}

}  // namespace

const char* JsonScan::CheckUtf8(const char* begin, const char* close) {
  if (simdjson::validate_utf8(begin, static_cast<size_t>(close - begin))) return close;
  // Rare: find the first bad byte so that the error points at it.
  auto* p = reinterpret_cast<const unsigned char*>(begin);
  auto* e = reinterpret_cast<const unsigned char*>(close);
  while (p < e) {
    size_t n = Utf8Seq(p, e);
    if (n == 0) break;
    p += n;
  }
  return Fail(ScanError::kBadUtf8, reinterpret_cast<const char*>(p));
}

namespace {

#if defined(__SSE2__)
// Bit i of each mask describes byte p[i] of a 64-byte block.
struct Block {
  uint64_t quote, bracket;
  uint64_t quoted;     // PrefixXor(quote): the bytes inside a string, if none began before
  uint64_t bslash_hi;  // '\\' or a byte >= 0x80
  uint64_t ctl_hi;     // a byte < 0x20 or >= 0x80
};

// Bit i set if an odd number of bits at or below i are set: with quote bits, the bytes inside a
// string (its opening quote included, its closing one not).
inline uint64_t PrefixXor(uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}
inline uint64_t Mask16(__m128i eq, int at) {
  return static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(eq))) << at;
}

inline Block Classify(const char* p) {
  const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
  const __m128i bit5 = _mm_set1_epi8(0x20), open_b = _mm_set1_epi8('{');
  const __m128i close_b = _mm_set1_epi8('}'), space = _mm_set1_epi8(0x20);
  Block b{0, 0, 0, 0, 0};
  for (int i = 0; i < 64; i += 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    // With bit 5 set, '[' 0x5b and ']' 0x5d become '{' 0x7b and '}' 0x7d; no other byte does.
    __m128i folded = _mm_or_si128(v, bit5);
    b.quote |= Mask16(_mm_cmpeq_epi8(v, quote), i);
    __m128i bracket = _mm_or_si128(_mm_cmpeq_epi8(folded, open_b), _mm_cmpeq_epi8(folded, close_b));
    b.bracket |= Mask16(bracket, i);
    // The sign bit is the byte's high bit; as signed bytes, 0x80-0xff are below 0x20 too.
    b.bslash_hi |= Mask16(_mm_or_si128(_mm_cmpeq_epi8(v, bslash), v), i);
    b.ctl_hi |= Mask16(_mm_cmpgt_epi8(space, v), i);
  }
  b.quoted = PrefixXor(b.quote);
  return b;
}

#if defined(__x86_64__) && defined(__GNUC__)
// The bytes ClassifyAvx2 compares against, 32 of each, read from memory: built in registers
// they took ~20 instructions on each call of SkipRest (most rests are one or two blocks).
struct alignas(32) ByteRows {
  char quote[32], bslash[32], bit5[32], open_b[32], close_b[32];
};
constexpr ByteRows MakeByteRows() {
  ByteRows r{};
  for (int i = 0; i < 32; ++i) {
    r.quote[i] = '"';
    r.bslash[i] = '\\';
    r.bit5[i] = 0x20;
    r.open_b[i] = '{';
    r.close_b[i] = '}';
  }
  return r;
}
constexpr ByteRows kRows = MakeByteRows();

__attribute__((target("avx2"))) inline __m256i Row(const char* r) {
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(r));
}

__attribute__((target("avx2"))) inline uint32_t Mask(__m256i eq) {
  return static_cast<uint32_t>(_mm256_movemask_epi8(eq));
}

// The four masks of 32 bytes at p.
struct HalfMasks {
  uint32_t quote, bracket, bslash_hi, ctl_hi;
};
__attribute__((target("avx2"))) inline HalfMasks ClassifyHalf(const char* p) {
  __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  __m256i folded = _mm256_or_si256(v, Row(kRows.bit5));
  return {Mask(_mm256_cmpeq_epi8(v, Row(kRows.quote))),
          Mask(_mm256_or_si256(_mm256_cmpeq_epi8(folded, Row(kRows.open_b)),
                               _mm256_cmpeq_epi8(folded, Row(kRows.close_b)))),
          Mask(_mm256_or_si256(_mm256_cmpeq_epi8(v, Row(kRows.bslash)), v)),
          // As signed bytes, 0x80-0xff are below 0x20 too (bit5's row is spaces).
          Mask(_mm256_cmpgt_epi8(Row(kRows.bit5), v))};
}

// Classify with 32-byte loads, for CPUs that have AVX2 (the build targets plain x86-64).
// (PCLMUL: a carry-less multiply by all ones is the prefix XOR, in one instruction.)
__attribute__((target("avx2,pclmul"))) Block ClassifyAvx2(const char* p) {
  const HalfMasks lo = ClassifyHalf(p), hi = ClassifyHalf(p + 32);
  auto join = [](uint32_t l, uint32_t h) { return l | static_cast<uint64_t>(h) << 32; };
  Block b{join(lo.quote, hi.quote), join(lo.bracket, hi.bracket), 0,
          join(lo.bslash_hi, hi.bslash_hi), join(lo.ctl_hi, hi.ctl_hi)};
  b.quoted = static_cast<uint64_t>(_mm_cvtsi128_si64(_mm_clmulepi64_si128(
      _mm_set_epi64x(0, static_cast<int64_t>(b.quote)), _mm_set1_epi8(-1), 0)));
  return b;
}

// One 64-byte load: the compares give the masks themselves (no movemask, no joining halves).
__attribute__((target("avx512f,avx512bw,pclmul"))) inline Block ClassifyAvx512(const char* p) {
  const __m512i v = _mm512_loadu_si512(p);
  const __m512i folded = _mm512_or_si512(v, _mm512_set1_epi8(0x20));
  Block b{_mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('"')),
          _mm512_cmpeq_epi8_mask(folded, _mm512_set1_epi8('{')) |
              _mm512_cmpeq_epi8_mask(folded, _mm512_set1_epi8('}')),
          0,
          // The sign bit is the byte's high bit.
          _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\\')) | _mm512_movepi8_mask(v),
          // As signed bytes, 0x80-0xff are below 0x20 too.
          _mm512_cmplt_epi8_mask(v, _mm512_set1_epi8(0x20))};
  b.quoted = static_cast<uint64_t>(_mm_cvtsi128_si64(_mm_clmulepi64_si128(
      _mm_set_epi64x(0, static_cast<int64_t>(b.quote)), _mm_set1_epi8(-1), 0)));
  return b;
}

// Set during static initialisation: the detection is run first (it may not have run yet), and
// it counts AVX2 and AVX-512 only where the OS saves the wide registers. Every AVX2 CPU has
// PCLMUL too; it is asked for all the same.
const JsonScan::Simd kBestSimd =
    (__builtin_cpu_init(), !__builtin_cpu_supports("pclmul") ? JsonScan::Simd::kSse2
                           : __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")
                               ? JsonScan::Simd::kAvx512
                           : __builtin_cpu_supports("avx2") ? JsonScan::Simd::kAvx2
                                                            : JsonScan::Simd::kSse2);
#endif

#endif

}  // namespace

#if defined(__SSE2__) && defined(__x86_64__) && defined(__GNUC__)
namespace {

// SkipRest for AVX2 and AVX-512 CPUs, with everything it calls inlined: the classifier runs
// once per 64-byte block, and as a call it cost more than its work (its five masks went
// through memory).
__attribute__((target("avx2,pclmul"), flatten)) const char* SkipRestAvx2(JsonScan& s, const char* p,
                                                                         char open) {
  return s.SkipRestBody<JsonScan::Simd::kAvx2>(p, open);
}
__attribute__((target("avx512f,avx512bw,pclmul"), flatten)) const char* SkipRestAvx512(
    JsonScan& s, const char* p, char open) {
  return s.SkipRestBody<JsonScan::Simd::kAvx512>(p, open);
}

}  // namespace
#endif

JsonScan::Simd JsonScan::BestSimd() {
#if defined(__SSE2__) && defined(__x86_64__) && defined(__GNUC__)
  return kBestSimd;
#else
  return Simd::kSse2;
#endif
}

const char* JsonScan::SkipRest(const char* p, char open) {
#if defined(__SSE2__) && defined(__x86_64__) && defined(__GNUC__)
  if (kBestSimd == Simd::kAvx512) return SkipRestAvx512(*this, p, open);
  if (kBestSimd == Simd::kAvx2) return SkipRestAvx2(*this, p, open);
#endif
  return SkipRestBody<Simd::kSse2>(p, open);
}

const char* JsonScan::SkipRestWith(Simd simd, const char* p, char open) {
#if defined(__SSE2__) && defined(__x86_64__) && defined(__GNUC__)
  if (simd == Simd::kAvx512) return SkipRestAvx512(*this, p, open);
  if (simd == Simd::kAvx2) return SkipRestAvx2(*this, p, open);
#else
  (void)simd;
#endif
  return SkipRestBody<Simd::kSse2>(p, open);
}

template <JsonScan::Simd kSimd>
const char* JsonScan::SkipRestBody(const char* p, char open) {
  // The open brackets, innermost last. A closing bracket is its opening one plus 2 ('{' 0x7b,
  // '}' 0x7d; '[' 0x5b, ']' 0x5d), and only the opening ones have bit 1 set. Entries are
  // written before they are read.
  char stack[kMaxDepth];
  int depth = 1;
  stack[0] = open;
  // Returns false on an error; true with depth 0 when the container closed.
  auto bracket = [&](char c, const char* at) {
    if (c & 2) {
      if (depth >= kMaxDepth) return Fail(ScanError::kTooDeep, at), false;
      stack[depth++] = c;
      return true;
    }
    if (stack[--depth] + 2 != c) return Fail(ScanError::kBracketMismatch, at), false;
    return true;
  };
#if defined(__SSE2__)
  // 64 bytes at a time while the block has no escape, no non-ASCII byte and no control byte
  // inside a string: strings are then told by the parity of the quotes before each byte, and
  // only the brackets outside them are visited. Anything else is left to the loop below.
  bool in_string = false;
  while (p < end_) {
    Block b;
#if defined(__x86_64__) && defined(__GNUC__)
    if constexpr (kSimd == Simd::kAvx512)
      b = ClassifyAvx512(p);
    else if constexpr (kSimd == Simd::kAvx2)
      b = ClassifyAvx2(p);
    else
      b = Classify(p);
#else
    b = Classify(p);
#endif
    uint64_t valid = end_ - p >= 64 ? ~uint64_t{0} : (uint64_t{1} << (end_ - p)) - 1;
    // Quotes past `valid` change only the bits above them, which are never used.
    uint64_t inside = b.quoted ^ (in_string ? ~uint64_t{0} : 0);
    if (((b.bslash_hi | (b.ctl_hi & inside)) & valid) != 0) break;
    for (uint64_t m = b.bracket & ~inside & valid; m != 0; m &= m - 1) {
      const char* at = p + __builtin_ctzll(m);
      if (!bracket(*at, at)) return nullptr;
      if (depth == 0) return at + 1;
    }
    if (valid != ~uint64_t{0}) return Fail(ScanError::kEnd, end_);
    in_string = inside >> 63;
    p += 64;
  }
  if (in_string) {  // the block stopped in the middle of a string
    const char* q = StringEnd(p);
    if (!q) return nullptr;
    p = q + 1;
  }
#endif
  while (true) {
#if defined(__SSE2__)
    // Jump to the next '"', '{', '}', '[', ']' or non-ASCII byte.
    const __m128i quote = _mm_set1_epi8('"'), bit5 = _mm_set1_epi8(0x20);
    const __m128i open_b = _mm_set1_epi8('{'), close_b = _mm_set1_epi8('}');
    while (p < end_) {
      __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      __m128i folded = _mm_or_si128(v, bit5);
      __m128i hit = _mm_or_si128(
          _mm_cmpeq_epi8(v, quote),
          _mm_or_si128(_mm_cmpeq_epi8(folded, open_b), _mm_cmpeq_epi8(folded, close_b)));
      unsigned m = static_cast<unsigned>(_mm_movemask_epi8(hit) | _mm_movemask_epi8(v));
      if (m) {
        p += __builtin_ctz(m);
        break;
      }
      p += 16;
    }
#else
    while (p < end_ && *p != '"' && *p != '{' && *p != '}' && *p != '[' && *p != ']' &&
           static_cast<unsigned char>(*p) < 0x80)
      ++p;
#endif
    if (p >= end_) return Fail(ScanError::kEnd, end_);
    char c = *p;
    if (c == '"') {
      const char* q = StringEnd(p + 1);
      if (!q) return nullptr;
      p = q + 1;
      continue;
    }
    if (static_cast<unsigned char>(c) >= 0x80) return Fail(ScanError::kExpectedValue, p);
    if (!bracket(c, p)) return nullptr;
    ++p;
    if (depth == 0) return p;
  }
}

}  // namespace commdx::ingest::kineto
