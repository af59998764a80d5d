// Reading inputs: plain or gzip files, folders walked in a stable order.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace commdx {

struct FileText {
  std::string path;  // as given by the user, for messages
  std::string data;  // decompressed bytes
  bool was_gzip = false;
  uint64_t compressed_bytes = 0;
};

struct ReadOptions {
  // Refuse to hold more than this many decompressed bytes (protects against gzip bombs and
  // inputs larger than memory). 0 = no limit.
  uint64_t max_bytes = 0;
};

// Reads `path`, transparently inflating gzip (detected by magic bytes, not by name).
// Errors: missing/unreadable file, truncated or corrupt gzip (with the compressed offset).
Result<FileText> ReadFile(const std::string& path, const ReadOptions& options = {});

// The first `bytes` bytes of `path`, decompressed as ReadFile would, without reading the rest:
// enough to recognise a format. Errors when the file cannot be opened or its start is corrupt.
Result<std::string> ReadHead(const std::string& path, size_t bytes);

// Inflates an in-memory gzip stream (all members). Exposed for tests and fuzzers.
Result<std::string> Gunzip(std::string_view compressed, const std::string& name_for_errors,
                           uint64_t max_bytes = 0);

bool LooksGzip(std::string_view data);

// Expands files and folders into a sorted list of regular files (folders recursively; hidden
// entries starting with '.' inside folders are skipped). A path that does not exist is an error.
Result<std::vector<std::string>> ExpandInputPaths(const std::vector<std::string>& paths);

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
