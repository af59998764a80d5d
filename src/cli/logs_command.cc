// `commdx logs FILE|FOLDER...`: NCCL debug logs alone — communicators, transport per peer pair,
// channels, NICs, environment overrides, warnings.
#include <memory>

#include "cli/commands.h"
#include "cli/output.h"

namespace commdx::cli {

namespace {

struct LogsOptions {
  std::vector<std::string> paths;
  OutputOptions output;
};

int RunLogs(const LogsOptions& o) {
  pipeline::Request request;
  request.command = "logs";
  request.paths = o.paths;
  request.load.only = {InputKind::kNcclLog};
  request.needs = pipeline::Needs::kNcclLines;
  // Logs alone: the other sources are not expected here.
  request.diagnose = diagnose::DiagnoseOptions::Only({Source::kLogs});
  request.parts = {pipeline::Part::kNccl};
  return RunAndEmit(std::move(request), o.output);
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
