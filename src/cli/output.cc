#include "cli/output.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>

#include "base/printable.h"
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
  report::Report r = input;
  if (options.quiet) {
    auto& f = r.diagnosis.findings;
    std::erase_if(f, [](const Finding& x) { return x.severity == Severity::kInfo; });
    r.tables.clear();
    r.charts = {};
  }
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
  if (options.output_path.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
  } else {
    std::ofstream out(options.output_path, std::ios::binary);
    out << text;
    if (!out) {
      return ReportError(MakeError(ErrorCode::kUsage, "cannot write the report",
                                   {options.output_path}));
    }
  }
  return report::HasErrorFindings(r) ? 1 : 0;
}

int ReportError(const Error& error) {
  // The place is a file name the user gave (or found in a folder): shown, not acted on.
  std::cerr << "commdx: " << Printable(error.ToString(), true) << "\n";
  return ExitCodeFor(error.code);
}

}  // namespace commdx::cli
