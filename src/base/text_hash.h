// A 64-bit hash of a text fed in pieces: the same value whatever the pieces, so a text too large
// to hold (read in windows, base/file_windows.h) can be compared with another read whole or in
// windows of other sizes. Not for security: for telling copies of one input apart from other
// inputs (ingest/load_copies.cc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace commdx {

class TextHash {
 public:
  // Appends `piece` to the text hashed so far.
  void Add(std::string_view piece);
  // The hash of everything added: the same for "ab" + "c" as for "abc".
  uint64_t Value() const;
  uint64_t bytes() const { return bytes_; }

 private:
  void Mix(uint64_t word);

  uint64_t state_ = 0x243f6a8885a308d3ull;
  uint64_t bytes_ = 0;
  unsigned char pending_[8] = {};  // the last bytes added, short of a word
  size_t pending_bytes_ = 0;
};

}  // namespace commdx
