// Reading inputs whole or their head: plain or gzip files and pipes, with bounded memory.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/input_path.h"
#include "base/result.h"

namespace commdx {

class GzipStream;

struct FileText {
  std::string path;  // as given by the user, for messages
  std::string data;  // decompressed bytes (UTF-8 when converted_from is set)
  bool was_gzip = false;
  uint64_t compressed_bytes = 0;
  // A regular file that grew while it was read (a log the job is still writing): what was there
  // when it was opened is read; `grew_bytes` were added since and not read, and the unfinished
  // last line of what was read (`dropped_tail_bytes`, no newline yet) is left out.
  uint64_t grew_bytes = 0;
  uint64_t dropped_tail_bytes = 0;
  // A gzip stream that ended before its end mark (the job died while it wrote the file, or a
  // pipe was cut): all it inflated to is read; its last line or event may be unfinished, which
  // each format's reader handles as it handles a file cut short.
  bool gzip_cut = false;
  const char* converted_from = nullptr;  // "UTF-16LE"/"UTF-16BE": converted (text_input.h)
  // A window of a text too large to hold whole (ReadWindows): the line number and byte offset
  // its first byte has in the whole text. Locations (LocAt, LineLocator) are the whole text's.
  uint64_t first_line = 1;
  uint64_t first_offset = 0;
};

// Line `line` of a window (1-based) as a line of the whole text, capped at what SourceLoc holds.
inline uint32_t WholeTextLine(const FileText& window, uint64_t line) {
  const uint64_t whole = window.first_line - 1 + line;
  return whole > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(whole);
}

// The limit on a file read whole into memory (docs/inputs.md), after decompression: a quarter of
// physical memory or of the address-space limit (`ulimit -v`), whichever is lower, between
// 256 MiB and 4 GiB. Compression ratio is no test: a real log of one repeated warning compresses
// 300:1 like a gzip bomb does, and only the size held costs memory.
uint64_t DefaultMaxBytes();

struct ReadOptions {
  // Refuse to hold more than this many (decompressed) bytes. 0 = DefaultMaxBytes().
  uint64_t max_bytes = 0;
};

// Reads `path` whole ("-" is standard input), transparently inflating gzip (detected by magic
// bytes, not by name), as text (text_input.h: UTF-16 converted). A regular file that grows while
// read is read as it was when opened (FileText::grew_bytes). Errors, each naming the OS reason:
// missing or unreadable file, a device or FIFO (input_path.h), over the limit (kTooLarge: a
// line-oriented text can then be read with ReadWindows, file_windows.h), a regular file
// that shrank while it was read ("changed while reading"), corrupt gzip (line:col in the
// decompressed text). A gzip stream cut short is read up to the cut (FileText::gzip_cut).
Result<FileText> ReadFile(const std::string& path, const ReadOptions& options = {});

// The text of bytes already read (a pipe read once): inflated if gzip.
Result<FileText> TextFromBytes(const std::string& path, std::string raw,
                               const ReadOptions& options = {});

// Everything `in` holds, up to `max_bytes` (more is an error). A regular file: the size it had
// when opened; bytes added since are not read and counted in `*grew_bytes` (when given).
Result<std::string> ReadAll(const OpenedInput& in, const std::string& path, uint64_t max_bytes,
                            uint64_t* grew_bytes = nullptr);

// The first `bytes` bytes of `path`, decompressed as ReadFile would, without reading the rest:
// enough to recognise a format. Errors when the file cannot be opened or its start is corrupt;
// pipes are refused (their head would be used up: read them whole with ReadFile). UTF-16 is
// converted (its name in `*converted_from`, when given).
Result<std::string> ReadHead(const std::string& path, size_t bytes,
                             const char** converted_from = nullptr);

// The last `bytes` bytes of an uncompressed regular file, from the first line that starts in
// them: what a console log says last (a hang at the end of hours of training output). Empty for
// a file no longer than `bytes` (its head held all of it), a gzip file or a pipe.
Result<std::string> ReadTail(const std::string& path, size_t bytes);

// Inflates an in-memory gzip stream (all members). A stream cut short is an error, unless `cut`
// is given: then what it inflated to is returned and *cut says it was cut. Exposed for tests and
// fuzzers.
Result<std::string> Gunzip(std::string_view compressed, const std::string& name_for_errors,
                           uint64_t max_bytes = 0, bool* cut = nullptr);

// Inflates `gz` to its end, appending to `out`: Gunzip for a stream read from an input (a pipe).
// Over `max_bytes` of `out` (0: no limit): kTooLarge, what was inflated kept in `out`. A stream
// cut short sets *cut when given, and is an error otherwise.
Status InflateInto(GzipStream& gz, const std::string& name, uint64_t max_bytes, std::string& out,
                   bool* cut = nullptr);

// Makes room for `more` bytes after `out`'s text, as a text that may grow to `max_bytes` (0: no
// limit) is read into it: doubling, but once near half the limit straight to the limit, so the
// copies of a growing text never hold twice the limit.
void GrowFor(std::string& out, size_t more, uint64_t max_bytes);

bool LooksGzip(std::string_view data);

// 1-based line and column of a byte offset in `data`.
struct LineCol {
  uint32_t line = 1;
  uint32_t col = 1;
};
LineCol LocateOffset(std::string_view data, uint64_t offset);

// SourceLoc for a byte offset in a file's text. Scans from the start: for one error, not per line.
SourceLoc LocAt(const FileText& file, uint64_t offset);

// SourceLocs for offsets met in order while parsing (a location kept for every row): carries the
// line count forward, so a whole file costs one pass instead of one pass per row. An offset
// before the last one asked for starts over from the beginning (still correct, just slower).
class LineLocator {
 public:
  explicit LineLocator(const FileText& file) : file_(file) {}
  SourceLoc At(uint64_t offset);

 private:
  const FileText& file_;
  uint64_t pos_ = 0;         // text before pos_ has been counted
  uint64_t line_start_ = 0;  // offset of the line pos_ is in
  uint32_t line_ = 1;
};

}  // namespace commdx
