#include "ingest/trace_build/interner.h"

#include <algorithm>
#include <cstring>

#include "ingest/trace_build/unescape.h"  // JsonUnescape

namespace commdx::ingest::trace_build {

Interner::Interner() {
  ids_.slots.resize(1024);
  raw_ids_.slots.resize(1024);
  Intern("");
}

namespace {

// Interner::Hash's body, inlined where names are interned (once per event).
__attribute__((always_inline)) inline uint64_t HashOf(std::string_view s) {
  // Length, and 16 bytes from each end read as words (kernel names are long template
  // signatures that differ at the start or the end).
  // The (little-endian) value of the up to 8 bytes from `at`, read without a byte-wise copy
  // into a stack word (reading that back stalled on store forwarding: half of Hash's time).
  auto word = [&s](size_t at) {
    const char* p = s.data() + at;
    const size_t r = std::min<size_t>(8, s.size() - at);
    uint64_t w = 0;
    if (r == 8) {
      std::memcpy(&w, p, 8);
    } else if (r >= 4) {  // two 4-byte loads that overlap: the shared bytes agree
      uint32_t lo = 0, hi = 0;
      std::memcpy(&lo, p, 4);
      std::memcpy(&hi, p + r - 4, 4);
      w = lo | (uint64_t{hi} << (8 * (r - 4)));
    } else {
      auto byte = [p](size_t i) { return uint64_t{static_cast<unsigned char>(p[i])} << (8 * i); };
      w = byte(0) | byte(r / 2) | byte(r - 1);  // r is 1, 2 or 3
    }
    return w;
  };
  uint64_t h = 0x9e3779b97f4a7c15ull ^ s.size();
  auto mix = [&h](uint64_t w) {
    h ^= w;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  };
  if (s.size() <= 32) {
    for (size_t at = 0; at < s.size(); at += 8) mix(word(at));
  } else {
    mix(word(0));
    mix(word(8));
    mix(word(s.size() - 16));
    mix(word(s.size() - 8));
  }
  return h;
}

}  // namespace

uint64_t Interner::Hash(std::string_view s) { return HashOf(s); }

template <class KeyOf>
Interner::Slot& Interner::Find(Table& t, std::string_view s, uint64_t h, KeyOf key) {
  size_t mask = t.slots.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    Slot& slot = t.slots[i];
    if (slot.id == kEmpty || (slot.hash == h && key(slot.id) == s)) return slot;
  }
}

void Interner::Grow(Table& t) {
  std::vector<Slot> old(t.slots.size() * 2);
  old.swap(t.slots);
  size_t mask = t.slots.size() - 1;
  for (const Slot& s : old) {
    if (s.id == kEmpty) continue;
    size_t i = s.hash & mask;
    while (t.slots[i].id != kEmpty) i = (i + 1) & mask;
    t.slots[i] = s;
  }
}

uint32_t Interner::Intern(std::string_view s) {
  uint64_t h = HashOf(s);
  auto key = [this](uint32_t id) { return std::string_view(storage_[id]); };
  Slot& slot = Find(ids_, s, h, key);
  if (slot.id != kEmpty) return slot.id;
  uint32_t id = static_cast<uint32_t>(storage_.size());
  storage_.emplace_back(s);
  slot = {h, id};
  if (2 * ++ids_.used > ids_.slots.size()) Grow(ids_);  // at most half full
  return id;
}

uint32_t Interner::InternRaw(std::string_view raw) {
  uint64_t h = HashOf(raw);
  auto key = [this](uint32_t e) { return raw_entries_[e].first; };
  Slot& slot = Find(raw_ids_, raw, h, key);  // stays valid: Intern() touches only ids_
  if (slot.id != kEmpty) return raw_entries_[slot.id].second;
  uint32_t id;
  std::string_view stored;
  // A name without escapes is its own raw form (and an empty view may be null: no memchr).
  if (raw.empty() || std::memchr(raw.data(), '\\', raw.size()) == nullptr) {
    id = Intern(raw);
    stored = storage_[id];
  } else {
    id = Intern(JsonUnescape(raw));
    stored = raw_keys_.emplace_back(raw);
  }
  slot = {h, static_cast<uint32_t>(raw_entries_.size())};
  raw_entries_.emplace_back(stored, id);
  if (2 * ++raw_ids_.used > raw_ids_.slots.size()) Grow(raw_ids_);
  return id;
}

std::vector<std::string> Interner::Take() {
  ids_ = Table{};
  raw_ids_ = Table{};
  ids_.slots.resize(1024);  // usable again, empty
  raw_ids_.slots.resize(1024);
  raw_entries_.clear();
  raw_keys_.clear();
  std::vector<std::string> out;
  out.reserve(storage_.size());
  for (auto& s : storage_) out.push_back(std::move(s));
  storage_.clear();
  return out;
}

}  // namespace commdx::ingest::trace_build
