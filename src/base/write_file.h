// Writing what commdx produces (reports, snapshots) without ever leaving a cut-off file.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"

namespace commdx {

// Writes all of `data` to the open descriptor, retrying short writes. Returns 0 or the errno.
int WriteAll(int fd, std::string_view data);

// Writes `data` to `path` so that `path` holds either its old content or all of `data`: written to
// a temporary file in the same folder (`path` through symbolic links), flushed, then renamed over
// it; the mode of a file replaced is kept. A `path` that exists and is not a regular file
// (/dev/null, a FIFO, a terminal) is written in place. Errors name the OS reason: exit 2 (kUsage)
// when the file cannot be created, 4 (kEnvironment) when writing fails (disk full, I/O error).
Status WriteFileAtomically(const std::string& path, std::string_view data);

}  // namespace commdx
