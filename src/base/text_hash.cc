#include "base/text_hash.h"

#include <algorithm>
#include <cstring>

namespace commdx {

namespace {

constexpr uint64_t kMul1 = 0x9e3779b97f4a7c15ull;
constexpr uint64_t kMul2 = 0xc2b2ae3d27d4eb4full;

uint64_t Rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

uint64_t Load(const unsigned char* p) {
  uint64_t w;
  std::memcpy(&w, p, sizeof w);
  return w;
}

}  // namespace

void TextHash::Mix(uint64_t word) { state_ = Rotl(state_ ^ (word * kMul1), 29) * kMul2; }

void TextHash::Add(std::string_view piece) {
  auto p = reinterpret_cast<const unsigned char*>(piece.data());
  size_t n = piece.size();
  bytes_ += n;
  if (pending_bytes_ > 0) {  // complete the word begun by the last piece
    const size_t take = std::min(n, sizeof pending_ - pending_bytes_);
    std::memcpy(pending_ + pending_bytes_, p, take);
    pending_bytes_ += take;
    p += take;
    n -= take;
    if (pending_bytes_ < sizeof pending_) return;
    Mix(Load(pending_));
    pending_bytes_ = 0;
  }
  for (; n >= 8; p += 8, n -= 8) Mix(Load(p));
  std::memcpy(pending_, p, n);
  pending_bytes_ = n;
}

uint64_t TextHash::Value() const {
  uint64_t h = state_;
  if (pending_bytes_ > 0) {
    unsigned char last[8] = {};
    std::memcpy(last, pending_, pending_bytes_);
    h = Rotl(h ^ (Load(last) * kMul1), 29) * kMul2;
  }
  // The length, so that texts differing only in trailing zero bytes differ; then a finaliser
  // that spreads every bit of the state over the value.
  h ^= bytes_ * kMul2;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

}  // namespace commdx
