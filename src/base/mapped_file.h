// A read-only memory map of a regular file that survives the file being cut short while it is
// mapped. Touching a mapped page past the new end raises SIGBUS; a handler installed once maps
// zero-filled pages over the rest of that mapping instead, marks it, and lets the read go on. The
// reader then sees zeros (a parse error, or an early end) and the caller, which compares the
// file's stamp before and after (input_path.h), reports "changed while reading" — never a signal.
//
// Why map at all, rather than read(): the trace reader parses a mapped file in place; reading
// copies every byte once more and was measured slower (docs/inputs.md). Why not sigsetjmp: the
// reader is C++ with destructors, and jumping out of it would skip them.
#pragma once

#include <cstddef>
#include <string>

#include "base/result.h"

namespace commdx {

class MappedFile {
 public:
  // Maps `size` bytes of `fd` (PROT_READ, MAP_PRIVATE). Errors name the OS reason.
  static Result<MappedFile> Map(int fd, size_t size, const std::string& name);

  MappedFile() = default;
  MappedFile(MappedFile&& o) noexcept;
  MappedFile& operator=(MappedFile&& o) noexcept;
  ~MappedFile();

  char* data() const { return data_; }
  size_t size() const { return size_; }
  // True when a page past the file's end was touched (the file shrank while mapped).
  bool cut_short() const;

 private:
  void Reset();
  char* data_ = nullptr;
  size_t size_ = 0;
  int slot_ = -1;  // in the table the SIGBUS handler reads
};

}  // namespace commdx
