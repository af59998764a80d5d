// Text helpers shared by the job-log readers: the line around a match, numbers after a key, the
// rank a line speaks for, and line numbers for matches found in increasing offset order.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/file.h"
#include "base/result.h"

namespace commdx::ingest::job_log {

// data.find(key, from) through memmem: std::string_view::find stops at every occurrence of the
// key's first character (a space, 'l'), which made the job-log scans run below 300 MB/s.
size_t FindFrom(std::string_view data, std::string_view key, size_t from);

// The line holding data[at], without its '\r'; `start` is its offset.
std::string_view LineAround(std::string_view data, size_t at, size_t& start);

// The integer after the first `key` in s; -1 if none.
int64_t NumberAfter(std::string_view s, std::string_view key);

// "[Rank 3]" / "Rank 3]" inside PyTorch's own prefix, else the launcher's "[rank3]:".
int RankOf(std::string_view line);

// The process group of PyTorch's "[PG ID 2 PG GUID 9(desc) Rank 4]" (or older "[PG 2 Rank 4]")
// prefix: its id and description; both left empty when the line has none.
void PgOf(std::string_view line, std::string& pg, std::string& desc);

// Line numbers for matches visited in increasing offset order: one pass over the file in all.
class LineCounter {
 public:
  // Lines of `f`'s text; a window's (file_windows.h) are numbered as lines of the whole file.
  explicit LineCounter(const FileText& f) : data_(f.data), window_(f) {}
  SourceLoc At(const std::string& path, size_t start);

 private:
  std::string_view data_;
  const FileText& window_;
  size_t pos_ = 0;
  uint32_t line_ = 1;
};

}  // namespace commdx::ingest::job_log
