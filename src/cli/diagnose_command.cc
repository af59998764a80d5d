#include <cstdio>
#include <memory>

#include "analysis/catalogue.h"
#include "analysis/registry.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "diagnose/diagnosis.h"
#include "ingest/load_inputs.h"
#include "ingest/registry.h"
#include "report/job_charts.h"
#include "report/sources.h"

namespace commdx::cli {

namespace {

struct DiagnoseOptions {
  std::vector<std::string> paths;
  bool list = false;
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
  auto job = ingest::LoadInputs(o.paths);
  if (!job) return ReportError(job.error());
  if (job->inputs.empty()) {
    // Name each file and why it was not read, so the user knows what to fix.
    for (const auto& s : job->skipped)
      std::fprintf(stderr, "commdx: %s: skipped: %s\n", s.path.c_str(), s.reason.c_str());
    return ReportError(MakeError(
        ErrorCode::kBadInput,
        job->skipped.size() == 1
            ? job->skipped[0].reason + "; expected a profiler trace, NCCL log, nccl-tests output, "
                                       "nvidia-smi text or commdx snapshot (commdx diagnose --list)"
            : "none of the " + std::to_string(job->skipped.size()) +
                  " file(s) given is an input commdx reads (profiler traces, NCCL logs, "
                  "nccl-tests output, nvidia-smi text, commdx snapshots); `commdx diagnose "
                  "--list` shows the formats",
        {job->skipped.size() == 1 ? job->skipped[0].path : std::string()}));
  }
  // The trace facts are computed once: the trace analyzers and the charts both read them.
  analysis::AnalysisInput input(*job);
  auto rep = report::MakeReport("diagnose", *job, diagnose::Diagnose(input));
  const analysis::TraceFacts& facts = input.trace_facts();
  report::AddSourceTables(*job, facts, rep);
  if (!job->trace.empty()) rep.charts.Append(report::TraceCharts(*job, facts));
  rep.charts.Append(report::BenchCharts(job->bench));
  return EmitReport(rep, o.output);
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
  AddOutputFlags(*cmd, o->output);
  cmd->callback([&run, o] { run = [o] { return RunDiagnose(*o); }; });
}

}  // namespace commdx::cli
