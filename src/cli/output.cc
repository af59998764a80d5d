#include "cli/output.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>

#include "base/input_path.h"
#include "base/printable.h"
#include "base/write_file.h"
#include "ingest/snapshot/snapshot.h"
#include "pipeline/pipeline.h"
#include "report/render.h"

namespace commdx::cli {

void AddOutputFlags(CLI::App& cmd, OutputOptions& options) {
  cmd.add_option("--format", options.format, "Output format")
      ->check(CLI::IsMember({"text", "json", "md", "html"}))
      ->capture_default_str();
  cmd.add_option("-o,--output", options.output_path,
                 "Write the report to FILE instead of stdout (- is stdout)");
  cmd.add_flag("-q,--quiet", options.quiet, "Print only findings at warning level and above");
  cmd.add_flag("-v,--verbose", options.verbose, "Show every evidence line");
  cmd.add_flag("--force", options.force, "Let -o (and --save) replace a read-only file");
}

int EmitReport(const report::Report& input, const OutputOptions& options) {
  // Quiet: a copy without the info findings, tables and charts; otherwise the report itself (a
  // trace of many steps has a breakdown row per step: a copy of it doubled the report's memory).
  std::optional<report::Report> quiet;
  if (options.quiet) {
    quiet = input;
    auto& f = quiet->diagnosis.findings;
    std::erase_if(f, [](const Finding& x) { return x.severity == Severity::kInfo; });
    quiet->tables.clear();
    quiet->charts = {};
  }
  const report::Report& r = quiet ? *quiet : input;
  const bool to_stdout = options.output_path.empty() || options.output_path == "-";
  bool to_tty = to_stdout && isatty(STDOUT_FILENO);
  std::string text;
  if (options.format == "json")
    text = report::RenderJson(r);
  else if (options.format == "md")
    text = report::RenderMarkdown(r);
  else if (options.format == "html")
    text = report::RenderHtml(r);
  else
    text = report::RenderText(r, {to_tty && !std::getenv("NO_COLOR"), options.verbose});
  const int code = report::HasErrorFindings(r) ? 1 : 0;
  if (to_stdout) {
    std::fflush(stdout);
    int err = WriteAll(STDOUT_FILENO, text);
    if (err == EPIPE) return code;  // the reader has gone (`| head`): nothing to say
    if (err)
      return ReportError(MakeError(
          ErrorCode::kEnvironment,
          std::string("cannot write the report to standard output: ") + std::strerror(err)));
    return code;
  }
  if (Status st = CheckNotAnInput(options.output_path, r); !st) return ReportError(st.error());
  if (Status st = WriteFileAtomically(options.output_path, text, {options.force}); !st)
    return ReportError(st.error());
  return code;
}

int RunAndEmit(pipeline::Request request, const OutputOptions& options) {
  // Charts are drawn in HTML only (and never with --quiet): not built otherwise, which also lets
  // the pipeline free each trace's events once it is digested (pipeline::Load).
  request.charts = request.charts && options.format == "html" && !options.quiet;
  auto out = pipeline::Run(std::move(request));
  if (!out) return ReportError(out.error());
  return EmitReport(out->report, options);
}

std::vector<std::string> ProtectedInputs(const std::vector<InputFile>& inputs,
                                         const std::vector<SkippedInput>& skipped) {
  std::vector<std::string> paths;
  for (const auto& in : inputs) paths.push_back(in.path);
  // A file skipped is still the user's, unless it is an earlier commdx report (own_report.h).
  for (const auto& sk : skipped)
    if (sk.reason.rfind("a commdx report", 0) != 0) paths.push_back(sk.path);
  return paths;
}

Status CheckNotAnInput(const std::string& output_path, const std::vector<std::string>& inputs,
                       const std::string& flag) {
  if (output_path == "-") return Ok{};
  auto out = StampOf(output_path);
  if (!out) return Ok{};  // a new file
  for (const auto& path : inputs) {
    auto stamp = StampOf(path);
    if (stamp && stamp->SameFile(*out))
      return MakeError(ErrorCode::kUsage,
                       "refusing to write " + std::string(flag == "-o" ? "the report" : "it") +
                           " over an input (" + path + "), which stays untouched; choose another " +
                           flag,
                       {output_path});
  }
  return Ok{};
}

Status CheckNotAnInput(const std::string& output_path, const report::Report& r) {
  return CheckNotAnInput(output_path, ProtectedInputs(r.inputs, r.skipped), "-o");
}

namespace {

// Whether two output paths end in the same file: the same inode when both exist, else the same
// place once links and `..` are resolved.
bool SameOutput(const std::string& a, const std::string& b) {
  auto sa = StampOf(a), sb = StampOf(b);
  if (sa && sb) return sa->SameFile(*sb);
  if (sa || sb) return false;
  auto ta = OutputTarget(a), tb = OutputTarget(b);
  if (!ta || !tb) return false;
  namespace fs = std::filesystem;
  std::error_code ea, eb;
  auto ca = fs::weakly_canonical(fs::absolute(*ta, ea), ea);
  auto cb = fs::weakly_canonical(fs::absolute(*tb, eb), eb);
  return !ea && !eb && ca == cb;
}

}  // namespace

Status CheckSaveTarget(const std::string& save_path, const std::vector<std::string>& inputs,
                       const OutputOptions& output) {
  const bool report_to_stdout = output.output_path.empty() || output.output_path == "-";
  if (save_path == "-" && report_to_stdout)
    return MakeError(ErrorCode::kUsage,
                     "--save - and the report would both go to standard output; give the report "
                     "a file with -o FILE, or --save a file");
  if (save_path != "-" && !report_to_stdout && SameOutput(save_path, output.output_path))
    return MakeError(ErrorCode::kUsage,
                     "--save and -o name the same file (" + output.output_path +
                         "): the report would replace the snapshot; choose two files",
                     {save_path});
  COMMDX_TRY(CheckNotAnInput(save_path, inputs, "--save"));
  if (!report_to_stdout) COMMDX_TRY(CheckNotAnInput(output.output_path, inputs, "-o"));
  return Ok{};
}

Status SaveSnapshot(const std::string& save_path, const Topology* topo, const EnvSnapshot* env,
                    const std::vector<std::string>& inputs, const OutputOptions& output) {
  COMMDX_TRY(CheckSaveTarget(save_path, inputs, output));
  return ingest::WriteSnapshotFile(save_path, topo, env, {output.force});
}

int RunSaveAndEmit(pipeline::Request request, const std::string& save_path,
                   std::vector<std::string> also_inputs, SnapshotEnv env,
                   const OutputOptions& output) {
  auto out = pipeline::Run(std::move(request));
  if (!out) return ReportError(out.error());
  if (!save_path.empty()) {
    const Job& job = out->job;
    auto inputs = ProtectedInputs(job.inputs, job.skipped);
    inputs.insert(inputs.end(), also_inputs.begin(), also_inputs.end());
    const bool with_env = env == SnapshotEnv::kAlways || job.env.captured;
    if (auto st = SaveSnapshot(save_path, &job.topo, with_env ? &job.env : nullptr, inputs, output);
        !st)
      return ReportError(st.error());
  }
  return EmitReport(out->report, output);
}

int ReportError(const Error& error) {
  // The place is a file name the user gave (or found in a folder): shown, not acted on.
  std::cerr << "commdx: " << Printable(error.ToString(), true) << "\n";
  return ExitCodeFor(error.code);
}

}  // namespace commdx::cli
