#include "cli/output.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>

#include "base/input_path.h"
#include "base/printable.h"
#include "base/write_file.h"
#include "report/render.h"

namespace commdx::cli {

void AddOutputFlags(CLI::App& cmd, OutputOptions& options) {
  cmd.add_option("--format", options.format, "Output format")
      ->check(CLI::IsMember({"text", "json", "md", "html"}))
      ->capture_default_str();
  cmd.add_option("-o,--output", options.output_path, "Write the report to FILE instead of stdout");
  cmd.add_flag("-q,--quiet", options.quiet, "Print only findings at warning level and above");
  cmd.add_flag("-v,--verbose", options.verbose, "Show every evidence line");
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
  bool to_tty = options.output_path.empty() && isatty(STDOUT_FILENO);
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
  if (options.output_path.empty()) {
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
  if (Status st = WriteFileAtomically(options.output_path, text); !st)
    return ReportError(st.error());
  return code;
}

Status CheckNotAnInput(const std::string& output_path, const report::Report& r) {
  auto out = StampOf(output_path);
  if (!out) return Ok{};  // a new file
  std::vector<std::string> given;
  for (const auto& in : r.inputs) given.push_back(in.path);
  // A file skipped is still the user's, unless it is an earlier commdx report (own_report.h).
  for (const auto& sk : r.skipped)
    if (sk.reason.rfind("a commdx report", 0) != 0) given.push_back(sk.path);
  for (const auto& path : given) {
    auto stamp = StampOf(path);
    if (stamp && stamp->SameFile(*out))
      return MakeError(ErrorCode::kUsage,
                       "refusing to write the report over an input (" + path +
                           "), which stays untouched; choose another -o",
                       {output_path});
  }
  return Ok{};
}

int ReportError(const Error& error) {
  // The place is a file name the user gave (or found in a folder): shown, not acted on.
  std::cerr << "commdx: " << Printable(error.ToString(), true) << "\n";
  return ExitCodeFor(error.code);
}

}  // namespace commdx::cli
