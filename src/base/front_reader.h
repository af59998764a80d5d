// A regular file read from its first byte on, by pread (the descriptor's offset is not used):
// what ReadHead, ScanWindows and ReadWindows share. Private to base/.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <string>

#include "base/input_path.h"
#include "base/result.h"

namespace commdx {

struct FrontReader {
  FrontReader(const OpenedInput& input, const std::string& name) : in(input), path(name) {}
  // Up to `n` bytes, none past `end`; 0 at the end.
  Result<size_t> Read(char* dst, size_t n) {
    if (at >= end) return size_t{0};
    n = static_cast<size_t>(std::min<uint64_t>(n, end - at));
    while (true) {
      ssize_t got = pread(in.fd(), dst, n, static_cast<off_t>(at));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) return MakeError(ErrorCode::kBadInput, OsReason(errno), {path});
      at += static_cast<uint64_t>(got);
      return static_cast<size_t>(got);
    }
  }
  // Reads the first two bytes (fewer in a shorter file) into `magic`: gzip's signature or not.
  Result<size_t> Magic() {
    size_t have = 0;
    while (have < 2) {
      COMMDX_ASSIGN_OR_RETURN(size_t got, Read(magic + have, 2 - have));
      if (got == 0) break;
      have += got;
    }
    return have;
  }
  const OpenedInput& in;
  const std::string& path;
  uint64_t at = 0;           // the next byte of the file to read
  uint64_t end = UINT64_MAX;  // read no further (the size a growing file had when opened)
  char magic[2] = {0, 0};
};

}  // namespace commdx
