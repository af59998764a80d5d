// Interned names of a rank (kernel and op names repeat millions of times) and JSON unescaping.
#include <algorithm>
#include <cstring>

#include "ingest/kineto/rank_builder.h"

namespace commdx::ingest::kineto {

Interner::Interner() { Intern(""); }

size_t Interner::Hash::operator()(std::string_view s) const noexcept {
  // Length, and 16 bytes from each end read as words (kernel names are long template
  // signatures that differ at the start or the end).
  auto word = [&s](size_t at) {
    uint64_t w = 0;
    std::memcpy(&w, s.data() + at, std::min<size_t>(8, s.size() - at));
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
  return static_cast<size_t>(h);
}

uint32_t Interner::Intern(std::string_view s) {
  auto it = ids_.find(s);
  if (it != ids_.end()) return it->second;
  storage_.emplace_back(s);
  uint32_t id = static_cast<uint32_t>(storage_.size() - 1);
  ids_.emplace(std::string_view(storage_.back()), id);
  return id;
}

uint32_t Interner::InternRaw(std::string_view raw) {
  if (raw.empty() || std::memchr(raw.data(), '\\', raw.size()) == nullptr) return Intern(raw);
  auto it = raw_ids_.find(raw);
  if (it != raw_ids_.end()) return it->second;
  uint32_t id = Intern(JsonUnescape(raw));
  raw_keys_.emplace_back(raw);
  raw_ids_.emplace(std::string_view(raw_keys_.back()), id);
  return id;
}

std::string JsonUnescape(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  auto hex4 = [&raw](size_t at) -> int64_t {
    if (at + 4 > raw.size()) return -1;
    int64_t v = 0;
    for (size_t k = at; k < at + 4; ++k) {
      char c = raw[k];
      int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (d < 0) return -1;
      v = v * 16 + d;
    }
    return v;
  };
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c != '\\' || i + 1 >= raw.size()) {
      out += c;
      continue;
    }
    char e = raw[++i];
    switch (e) {
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        int64_t cp = hex4(i + 1);
        if (cp < 0) {
          out += '?';
          break;
        }
        i += 4;
        if (cp >= 0xD800 && cp < 0xDC00 && i + 2 < raw.size() && raw[i + 1] == '\\' && raw[i + 2] == 'u') {
          int64_t lo = hex4(i + 3);
          if (lo >= 0xDC00 && lo < 0xE000) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            i += 6;
          }
        }
        if (cp < 0x80) {
          out += static_cast<char>(cp);
        } else if (cp < 0x800) {
          out += static_cast<char>(0xC0 | (cp >> 6));
          out += static_cast<char>(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
          out += static_cast<char>(0xE0 | (cp >> 12));
          out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
          out += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
          out += static_cast<char>(0xF0 | (cp >> 18));
          out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
          out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
          out += static_cast<char>(0x80 | (cp & 0x3F));
        }
        break;
      }
      default: out += e;  // \" \\ \/ and anything else as itself
    }
  }
  return out;
}

std::vector<std::string> Interner::Take() {
  ids_.clear();
  raw_ids_.clear();
  raw_keys_.clear();
  std::vector<std::string> out;
  out.reserve(storage_.size());
  for (auto& s : storage_) out.push_back(std::move(s));
  storage_.clear();
  return out;
}

}  // namespace commdx::ingest::kineto
