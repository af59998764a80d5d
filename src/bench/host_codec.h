// Host-side conversion between double and every NCCL element type, for the backend's host
// fallback (no nvcc: fill and check from the host) and for tests. half, bfloat16 and the two
// fp8 formats are encoded with round-to-nearest-even; values beyond the range become inf
// (e5m2, half, bf16) or the largest finite value (e4m3, which has no inf).
#pragma once

#include <cstdint>

#include "bench/types.h"

namespace commdx::bench {

void EncodeValue(double v, DataType t, void* out);
double DecodeValue(const void* in, DataType t);

}  // namespace commdx::bench
