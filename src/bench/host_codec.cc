#include "bench/host_codec.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace commdx::bench {

namespace {

// A generic binary float with `ebits` exponent and `mbits` mantissa bits.
uint32_t EncodeMini(double v, int ebits, int mbits, bool has_inf) {
  uint32_t sign = std::signbit(v) ? 1u : 0u;
  double a = std::fabs(v);
  int bias = (1 << (ebits - 1)) - 1;
  uint32_t emax_field = (1u << ebits) - 1;
  uint32_t out_sign = sign << (ebits + mbits);
  if (std::isnan(a)) return out_sign | (emax_field << mbits) | ((1u << mbits) - 1);
  if (a == 0) return out_sign;
  int e;
  double frac = std::frexp(a, &e);  // a = frac * 2^e, frac in [0.5, 1)
  int exp = e - 1;                  // a = (2*frac) * 2^exp
  int field = exp + bias;
  double mant;
  if (field <= 0) {  // subnormal
    mant = a / std::ldexp(1.0, 1 - bias - mbits);
    field = 0;
  } else {
    mant = (2 * frac - 1) * std::ldexp(1.0, mbits);
  }
  double r = std::nearbyint(mant);  // ties to even under the default rounding mode
  uint64_t m = static_cast<uint64_t>(r);
  if (m >= (1ull << mbits) && field > 0) {
    m = 0;
    ++field;
  } else if (field == 0 && m >= (1ull << mbits)) {
    field = 1;
    m -= 1ull << mbits;
  }
  uint32_t max_field = has_inf ? emax_field - 1 : emax_field;
  uint32_t max_mant = has_inf ? (1u << mbits) - 1 : (1u << mbits) - 2;  // e4m3: S.1111.111 is NaN
  if (static_cast<uint32_t>(field) > max_field ||
      (static_cast<uint32_t>(field) == max_field && m > max_mant)) {
    if (has_inf) return out_sign | (emax_field << mbits);
    return out_sign | (max_field << mbits) | max_mant;
  }
  return out_sign | (static_cast<uint32_t>(field) << mbits) | static_cast<uint32_t>(m);
}

double DecodeMini(uint32_t bits, int ebits, int mbits, bool has_inf) {
  uint32_t sign = (bits >> (ebits + mbits)) & 1u;
  uint32_t field = (bits >> mbits) & ((1u << ebits) - 1);
  uint32_t m = bits & ((1u << mbits) - 1);
  int bias = (1 << (ebits - 1)) - 1;
  uint32_t emax_field = (1u << ebits) - 1;
  double v;
  if (field == emax_field && has_inf)
    v = m ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else if (field == emax_field && !has_inf && m == (1u << mbits) - 1)
    v = std::numeric_limits<double>::quiet_NaN();
  else if (field == 0)
    v = std::ldexp(static_cast<double>(m), 1 - bias - mbits);
  else
    v = std::ldexp(1.0 + std::ldexp(static_cast<double>(m), -mbits),
                   static_cast<int>(field) - bias);
  return sign ? -v : v;
}

template <class T>
void Put(T v, void* out) {
  std::memcpy(out, &v, sizeof v);
}
template <class T>
T Get(const void* in) {
  T v;
  std::memcpy(&v, in, sizeof v);
  return v;
}

}  // namespace

void EncodeValue(double v, DataType t, void* out) {
  switch (t) {
    case DataType::kInt8:
      Put(static_cast<int8_t>(v), out);
      break;
    case DataType::kUint8:
      Put(static_cast<uint8_t>(v), out);
      break;
    case DataType::kInt32:
      Put(static_cast<int32_t>(v), out);
      break;
    case DataType::kUint32:
      Put(static_cast<uint32_t>(v), out);
      break;
    case DataType::kInt64:
      Put(static_cast<int64_t>(v), out);
      break;
    case DataType::kUint64:
      Put(static_cast<uint64_t>(v), out);
      break;
    case DataType::kFloat:
      Put(static_cast<float>(v), out);
      break;
    case DataType::kDouble:
      Put(v, out);
      break;
    case DataType::kHalf:
      Put(static_cast<uint16_t>(EncodeMini(v, 5, 10, true)), out);
      break;
    case DataType::kBfloat16:
      Put(static_cast<uint16_t>(EncodeMini(v, 8, 7, true)), out);
      break;
    case DataType::kFp8E4M3:
      Put(static_cast<uint8_t>(EncodeMini(v, 4, 3, false)), out);
      break;
    case DataType::kFp8E5M2:
      Put(static_cast<uint8_t>(EncodeMini(v, 5, 2, true)), out);
      break;
  }
}

double DecodeValue(const void* in, DataType t) {
  switch (t) {
    case DataType::kInt8:
      return Get<int8_t>(in);
    case DataType::kUint8:
      return Get<uint8_t>(in);
    case DataType::kInt32:
      return Get<int32_t>(in);
    case DataType::kUint32:
      return Get<uint32_t>(in);
    case DataType::kInt64:
      return static_cast<double>(Get<int64_t>(in));
    case DataType::kUint64:
      return static_cast<double>(Get<uint64_t>(in));
    case DataType::kFloat:
      return Get<float>(in);
    case DataType::kDouble:
      return Get<double>(in);
    case DataType::kHalf:
      return DecodeMini(Get<uint16_t>(in), 5, 10, true);
    case DataType::kBfloat16:
      return DecodeMini(Get<uint16_t>(in), 8, 7, true);
    case DataType::kFp8E4M3:
      return DecodeMini(Get<uint8_t>(in), 4, 3, false);
    case DataType::kFp8E5M2:
      return DecodeMini(Get<uint8_t>(in), 5, 2, true);
  }
  return 0;
}

}  // namespace commdx::bench
