// Flags every subcommand shares (--format, -o, --quiet, --verbose) and writing the report.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "base/result.h"
#include "model/job.h"
#include "pipeline/request.h"
#include "report/report.h"

namespace commdx::cli {

struct OutputOptions {
  std::string format = "text";  // text | json | md | html
  std::string output_path;      // empty or "-" = stdout
  bool quiet = false;
  bool verbose = false;
  bool force = false;  // -o / --save may replace a read-only file
};

// --format, -o, --quiet, --verbose and --force (the one place they are declared).
void AddOutputFlags(CLI::App& cmd, OutputOptions& options);

// Renders and writes the report; returns the exit code (0, or 1 with error-level findings; 2 when
// -o names an input; 4 with the OS reason when the report cannot be written). A reader that
// closed the pipe (EPIPE) is not an error.
int EmitReport(const report::Report& report, const OutputOptions& options);

// Runs the request through the pipeline (pipeline.h) and emits its report; an error of the run
// (a broken file named alone, nothing read) is printed with its exit code.
int RunAndEmit(pipeline::Request request, const OutputOptions& options);

// Refuses (exit 2) an output path that is one of the report's inputs, also through symbolic or
// hard links (same device and inode).
Status CheckNotAnInput(const std::string& output_path, const report::Report& r);

// The files an output must not replace: those read, and those skipped unless they are earlier
// commdx reports (own_report.h).
std::vector<std::string> ProtectedInputs(const std::vector<InputFile>& inputs,
                                         const std::vector<SkippedInput>& skipped);

// Refuses (exit 2) `output_path` when it is one of `inputs` (same device and inode); `flag`
// ("-o", "--save") says which option to change.
Status CheckNotAnInput(const std::string& output_path, const std::vector<std::string>& inputs,
                       const std::string& flag);

// Whether `--save FILE` may be written: not one of `inputs`, nor the file -o writes, nor standard
// output when the report goes there too (exit 2, naming it).
Status CheckSaveTarget(const std::string& save_path, const std::vector<std::string>& inputs,
                       const OutputOptions& output);

// `--save FILE` of topo, env and doctor: checked before anything is written, like -o (FILE may
// not be one of `inputs`, nor the file -o writes: exit 2, naming it), then written as -o writes
// (write_file.h; --force for a read-only file). Either section may be null.
Status SaveSnapshot(const std::string& save_path, const Topology* topo, const EnvSnapshot* env,
                    const std::vector<std::string>& inputs, const OutputOptions& output);

// topo and env: runs the request, then writes `save_path` (when given) from the Job it read, never
// over one of its inputs, the files the user named or `also_inputs`; then emits the report. The
// environment goes into the snapshot when `env` says so or the Job captured one.
enum class SnapshotEnv { kAlways, kIfCaptured };
int RunSaveAndEmit(pipeline::Request request, const std::string& save_path,
                   std::vector<std::string> also_inputs, SnapshotEnv env,
                   const OutputOptions& output);

// Prints an error as "commdx: file:line:col: error: ..." and returns its exit code.
int ReportError(const Error& error);

}  // namespace commdx::cli
