#include <cstdio>
#include <memory>

#include "analysis/catalogue.h"
#include "analysis/registry.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "ingest/registry.h"

namespace commdx::cli {

namespace {

struct DiagnoseOptions {
  std::vector<std::string> paths;
  bool list = false;
  int threads = 0;
  OutputOptions output;
};

int PrintCatalogue() {
  std::printf("Findings commdx can raise (docs/findings.md explains each):\n\n");
  for (const auto& e : analysis::Catalogue())
    std::printf("  %-26s %-8s %-5s %-7s step %-2d %s\n", e.id, SeverityName(e.default_severity),
                SourceName(e.source), analysis::RoleName(e.role), e.method_step, e.title);
  std::printf("\nInput formats recognised by content:\n\n");
  for (const auto& imp : ingest::Importers())
    std::printf("  %-14s %s\n", imp.name(), imp.description);
  std::printf("\nAnalyzers:\n\n");
  for (const auto& a : analysis::Analyzers())
    std::printf("  %-26s [%s] %s\n", a.name, SourceName(a.source), a.description);
  return 0;
}

int RunDiagnose(const DiagnoseOptions& o) {
  if (o.list) return PrintCatalogue();
  if (o.paths.empty())
    return ReportError(MakeError(ErrorCode::kUsage, "diagnose needs files or folders (or --list)"));
  pipeline::Request request;
  request.command = "diagnose";
  request.paths = o.paths;
  request.needs = pipeline::Needs::kAnyInput;
  request.parts = pipeline::EveryPart();
  request.charts = true;
  request.load.threads = o.threads;
  return RunAndEmit(std::move(request), o.output);
}

}  // namespace

void AddDiagnoseCommand(CLI::App& app, Action& run) {
  auto o = std::make_shared<DiagnoseOptions>();
  auto* cmd = app.add_subcommand(
      "diagnose",
      "Read everything a job left behind (profiler traces, NCCL logs, nccl-tests output, "
      "nvidia-smi text, commdx snapshots), recognised by content, and print one ranked diagnosis "
      "with the root cause and the fix");
  cmd->add_option("paths", o->paths, "Files or folders");
  cmd->add_flag("--list", o->list, "Print the catalogue of findings, input formats and analyzers");
  cmd->add_option("--threads", o->threads,
                  "Worker threads for parsing files and analysing ranks (default: all cores)")
      ->check(CLI::Range(0, 4096));
  AddOutputFlags(*cmd, o->output);
  cmd->callback([&run, o] { run = [o] { return RunDiagnose(*o); }; });
}

}  // namespace commdx::cli
