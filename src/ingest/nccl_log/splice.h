// Lines of two processes spliced on a shared stdout: one process's write lands in the middle of
// another's line, or right after text that has no newline yet.
//
// "vm:974:974 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via SHM/direct/di" (the cut-off first
// part) + "vm:975:975 [1] NCCL INFO NCCL_P2P_DISABLE set by environment to 1" (the embedded line,
// its host glued to "di"); "loss 0.53" (other output) + "vm:975:975 [1] NCCL INFO Connected...".
//
// The glued host is told apart by the processes already seen in the file: the longest known host
// the glued token ends with (otherwise "divm" and "0.53vm" would be phantom processes).
#pragma once

#include <cstddef>
#include <string_view>

#include "ingest/nccl_log/builder.h"
#include "ingest/nccl_log/line.h"

namespace commdx::ingest::nccl_log {

struct Splice {
  size_t at = std::string_view::npos;  // where the embedded line starts in the physical line
  bool mid_line = false;               // inside an NCCL line's message (else after other text)
};

// Where, in `line` (split into `li`), the line of another process starts; npos if nowhere.
Splice FindSplice(std::string_view line, const LineInfo& li, const Builder& b);

}  // namespace commdx::ingest::nccl_log
