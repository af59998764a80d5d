// Flags every subcommand shares (--format, -o, --quiet, --verbose) and writing the report.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "base/result.h"
#include "report/report.h"

namespace commdx::cli {

struct OutputOptions {
  std::string format = "text";  // text | json | md | html
  std::string output_path;      // empty = stdout
  bool quiet = false;
  bool verbose = false;
};

void AddOutputFlags(CLI::App& cmd, OutputOptions& options);

// Renders and writes the report; returns the exit code (0, or 1 with error-level findings; 2 when
// -o names an input; 4 with the OS reason when the report cannot be written). A reader that
// closed the pipe (EPIPE) is not an error.
int EmitReport(const report::Report& report, const OutputOptions& options);

// Refuses (exit 2) an output path that is one of the report's inputs, also through symbolic or
// hard links (same device and inode).
Status CheckNotAnInput(const std::string& output_path, const report::Report& r);

// Prints an error as "commdx: file:line:col: error: ..." and returns its exit code.
int ReportError(const Error& error);

}  // namespace commdx::cli
