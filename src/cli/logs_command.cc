#include <memory>

#include "analysis/registry.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "diagnose/diagnosis.h"
#include "ingest/load_job.h"
#include "report/nccl_tables.h"

namespace commdx::cli {

namespace {

struct LogsOptions {
  std::vector<std::string> paths;
  OutputOptions output;
};

int RunLogs(const LogsOptions& o) {
  ingest::LoadOptions load;
  load.only = {"nccl_log"};
  load.force_single = false;
  auto job = ingest::LoadJob(o.paths, load);
  if (!job) return ReportError(job.error());
  if (job->nccl.nccl_lines == 0 && job->nccl.files.empty())
    return ReportError(MakeError(ErrorCode::kBadInput,
                                 "no NCCL log lines found in the given input (expected lines like "
                                 "'host:pid:tid [dev] NCCL INFO ...')",
                                 {o.paths.size() == 1 ? o.paths[0] : std::string()}));
  auto findings = analysis::RunAnalyzers(*job, {}, {"logs"});
  auto diag = diagnose::Diagnose(*job, std::move(findings));
  diag.not_checked.clear();  // logs alone: the other sources are not expected here
  auto rep = report::MakeReport("logs", *job, std::move(diag));
  rep.include_root_cause = false;
  report::AddNcclTables(job->nccl, rep);
  return EmitReport(rep, o.output);
}

}  // namespace

void AddLogsCommand(CLI::App& app, Action& run) {
  auto o = std::make_shared<LogsOptions>();
  auto* cmd = app.add_subcommand(
      "logs",
      "Analyse NCCL debug logs (NCCL_DEBUG=INFO): communicators, transport per peer pair, "
      "channels, NICs, environment overrides, warnings");
  cmd->add_option("paths", o->paths, "Log files or folders (.log, .txt, .gz; mixed output is fine)")
      ->required();
  AddOutputFlags(*cmd, o->output);
  cmd->callback([&run, o] { run = [o] { return RunLogs(*o); }; });
}

}  // namespace commdx::cli
