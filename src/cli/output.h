// Flags every subcommand shares (--format, -o, --quiet, --verbose) and writing the report.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

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

// Renders and writes the report; returns the exit code (0, or 1 with error-level findings).
int EmitReport(const report::Report& report, const OutputOptions& options);

// Prints an error as "commdx: file:line:col: error: ..." and returns its exit code.
int ReportError(const Error& error);

}  // namespace commdx::cli
