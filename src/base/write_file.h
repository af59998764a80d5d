// Writing what commdx produces (reports, snapshots) without ever leaving a cut-off file, and
// without changing what the user keeps: links, owner, mode, read-only files.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"

namespace commdx {

// Writes all of `data` to the open descriptor, retrying short writes. Returns 0 or the errno.
int WriteAll(int fd, std::string_view data);

struct WriteOptions {
  bool force = false;  // replace a read-only file (--force)
};

// The file that writing `path` changes: the end of its chain of symbolic links, a dangling link's
// target included (written there, the link kept), else `path` itself. Errors (exit 2): a link
// loop, a link that cannot be read.
Result<std::string> OutputTarget(const std::string& path);

// Writes `data` to `path` ("-": standard output) so that it holds either its old content or all
// of `data`, and stays the file it was:
// - written to a hidden temporary file in the target's folder (TempFile: removed if SIGINT,
//   SIGTERM or SIGHUP ends the process meanwhile), flushed, then renamed over the target, with
//   the old file's mode, owner and group set on it first;
// - a file with other hard links, or whose owner or group could not be given to the temporary
//   file (not root), is instead rewritten in place once the temporary file holds all of `data`
//   (which proves the space is there), so its links and owner survive; if that write fails, the
//   temporary file is kept and named in the error;
// - a writable file in a folder where no temporary file can be created is rewritten in place;
// - a symbolic link is followed (OutputTarget);
// - a file without write permission is refused (exit 2) unless `options.force`;
// - a path that is not a regular file (/dev/null, a FIFO, a terminal) is written as it is;
// - /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N are written through the open
//   descriptor they name, as `-` is (appended where the shell opened it to append).
// Errors name the OS reason: exit 2 (kUsage) when the file cannot be created or is refused, 4
// (kEnvironment) when writing fails (disk full, I/O error).
Status WriteFileAtomically(const std::string& path, std::string_view data,
                           const WriteOptions& options = {});

}  // namespace commdx
