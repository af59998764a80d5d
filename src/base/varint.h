// Unsigned LEB128 varints and zig-zag signs: integers that are mostly small (differences of
// sorted times, indices) in one to three bytes instead of eight. Used by the packed forms of a
// rank's host ops (model/trace.h) and of its GPU timeline (analysis/packed_timeline.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace commdx {

inline void PutVarint(std::vector<uint8_t>& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<uint8_t>(v));
}

// Reads the varint at in[at] and moves `at` past it. The bytes are the encoder's own (no bounds
// check: packed data never comes from a file).
inline uint64_t GetVarint(const std::vector<uint8_t>& in, size_t& at) {
  uint64_t v = 0;
  for (int shift = 0;; shift += 7) {
    const uint8_t b = in[at++];
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return v;
  }
}

// Signed differences as small unsigned numbers: 0, -1, 1, -2... as 0, 1, 2, 3...
inline uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t UnZigZag(uint64_t v) {
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

}  // namespace commdx
