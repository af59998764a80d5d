// The tab-separated device matrix that `nvidia-smi topo -m` and `nvidia-smi topo -p2p X` print,
// cut into a header and rows. ANSI escapes (nvidia-smi underlines the header on a TTY) are
// removed; offsets point into the original text for error locations.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace commdx::ingest::smi {

struct MatrixRow {
  std::string label;                // "GPU0", "NIC1", "mlx5_0"
  std::vector<std::string> cells;   // one per device column, trimmed ("X", "NV18", "OK")
  std::vector<std::string> extras;  // non-empty fields after the device columns, in order
  uint64_t offset = 0;              // of the line in the file
};

struct Matrix {
  std::vector<std::string> columns;        // device columns of the header
  std::vector<std::string> extra_columns;  // "CPU Affinity", "NUMA Affinity", "GPU NUMA ID"
  std::vector<MatrixRow> rows;
  uint64_t header_offset = 0;
  uint64_t end_offset = 0;           // where the matrix ended (a blank line or "Legend:")
  std::vector<uint64_t> short_rows;  // rows with fewer cells than columns (offsets)
  std::vector<uint64_t> realigned_rows;  // rows read back into columns (RealignExtras)
};

// Removes ANSI escape sequences ("\x1b[4m").
std::string StripAnsi(std::string_view line);

// True for "GPU0", "GPU12", "NIC3".
bool IsDeviceLabel(std::string_view s);
// "GPU12" -> 12; -1 if not a GPU label.
int GpuIndexOfLabel(std::string_view s);

// Finds the first matrix at or after `from`: a header line naming GPU0 and no "X" cell, then
// rows starting with one of its labels. Returns false if there is no header.
bool ReadMatrix(std::string_view text, uint64_t from, Matrix& out);

// Lines of `text` with their offsets, without the newline (and a trailing '\r').
struct Line {
  std::string_view text;
  uint64_t offset;
};
std::vector<Line> SplitLines(std::string_view text);

}  // namespace commdx::ingest::smi
