// Text files read front to back in windows of whole lines, one window held at a time: to
// recognise console text whose telling lines sit anywhere in it (ScanWindows), and to read a
// line-oriented text too large to hold whole (ReadWindows: hours of NCCL_DEBUG=INFO output over
// the limit of ReadFile).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "base/file.h"
#include "base/result.h"

namespace commdx {

// Reads a file (plain or gzip) front to back in windows of whole lines of about `window` bytes
// (a line longer than that is cut) and hands each to `visit`, which returns true to stop. Memory:
// one window. For recognising text whose telling lines sit neither at its start nor at its end
// (an NCCL error in the middle of hours of training output). Unreadable or corrupt further on:
// what came before was looked at, and that is all. Pipes are refused, as by ReadHead.
Status ScanWindows(const std::string& path, size_t window,
                   const std::function<bool(std::string_view)>& visit);

// What ReadWindows read: `file` has every FileText fact but the text (path, was_gzip,
// compressed_bytes, grew_bytes, dropped_tail_bytes, gzip_cut), for input quality.
struct WindowedRead {
  FileText file;
  uint64_t bytes = 0;    // text handed over, in all windows
  uint64_t windows = 0;  // how many
  uint64_t cut_lines = 0;  // lines longer than a window, handed over in pieces
  // Unreadable or corrupt gzip after `bytes`: the windows before were handed over, none after.
  std::optional<Error> stopped;
};

// Reads a regular file (plain or gzip) front to back and hands `visit` its text in windows of
// whole lines of about `window` bytes, each a FileText that knows where it sits in the whole text
// (first_line, first_offset), so a line parser fed the windows in turn reads the whole text with
// its true line numbers, holding one window. A line longer than a window is handed over in pieces
// (counted in cut_lines). A file that grows while read is read as it was when opened, without
// its unfinished last line. UTF-16 text is not converted (read such a file whole). Errors: the
// file cannot be opened or its start is unreadable; pipes are refused.
Result<WindowedRead> ReadWindows(const std::string& path, size_t window,
                                 const std::function<void(const FileText&)>& visit);

// Text from `read` (up to n bytes into dst, 0 at its end), handed to `visit` in windows as
// ReadWindows hands a file's: for a pipe, read once, whose start was read before it was known to
// be a log (ingest/pipe_head.h). A read error ends the text: the windows before were handed over
// (`stopped`). `file` has only the path; the caller knows whether the text was inflated.
WindowedRead ReadTextWindows(const std::string& path, size_t window,
                             const std::function<Result<size_t>(char*, size_t)>& read,
                             const std::function<void(const FileText&)>& visit);

}  // namespace commdx
