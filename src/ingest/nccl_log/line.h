// One input line split into the NCCL prefix and the message, for every era of the format and the
// wrappers launchers put around it (docs/nccl-log-grammar.md §1).
#pragma once

#include <cstdint>
#include <string_view>

namespace commdx::ingest::nccl_log {

enum class Level {
  kInfo,    // "NCCL INFO" (and pre-2.3 bare "INFO" after a full prefix)
  kWarn,    // "NCCL WARN"
  kTrace,   // "NCCL TRACE"
  kCall,    // "NCCL CALL"
  kBanner,  // "NCCL version 2.19.3+cuda12.3" with no level word (stdout banner, framework text)
  kBare,    // no level word at all: a prefix-stripped message, accepted only if a line kind
            // recognises it
};

struct LineInfo {
  std::string_view raw;   // the whole line, without the trailing \r
  std::string_view host;  // "" when stripped
  int64_t pid = 0;        // 0 when stripped
  int64_t tid = -1;
  int dev = -1;  // [dev]: the CUDA device index as the process sees it
  Level level = Level::kInfo;
  std::string_view source;  // "misc/shmutils.cc:112" before WARN, "" otherwise
  std::string_view msg;     // text after the level word
  int64_t time_ns = -1;     // from a timestamp wrapper, ns since the epoch (UTC as written)
  bool weak = false;        // no "NCCL" word nor full prefix: only a line kind can confirm it
  uint64_t line_no = 0;     // 1-based
  uint64_t offset = 0;      // byte offset of the line start in the file
  // 1-based column of the line start: > 1 for a line spliced into another (two processes
  // writing one stdout).
  uint32_t col = 1;
};

// Splits `line` into prefix and message. Returns false when the line cannot be NCCL output
// (application output, blank lines). Lines with level kBare/weak are candidates only.
bool SplitNcclLine(std::string_view line, LineInfo& out);

// Removes launcher wrappers from the start of a line: "[1,3]<stdout>:", "[rank3]:",
// "[trainer0|0]:", "0: ", "> ", timestamps "[2025-07-21 19:05:29] ", leading blanks.
std::string_view StripLauncherPrefix(std::string_view line);

// Parses "[YYYY-MM-DD HH:MM:SS(.frac)]" or "YYYY-MM-DDTHH:MM:SS(.frac)Z" found anywhere in `s`
// into ns since the epoch; -1 if there is none.
int64_t FindTimestampNs(std::string_view s);

}  // namespace commdx::ingest::nccl_log
