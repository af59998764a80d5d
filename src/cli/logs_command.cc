#include <algorithm>
#include <memory>

#include "base/file.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "diagnose/diagnosis.h"
#include "ingest/load_inputs.h"
#include "report/nccl_tables.h"

namespace commdx::cli {

namespace {

struct LogsOptions {
  std::vector<std::string> paths;
  OutputOptions output;
};

// Why a file holds no NCCL line, in words a user can act on.
std::string WhyNotNcclLog(const std::string& path) {
  if (IsHandedOverName(path)) return "no NCCL log line in it";  // a pipe is read only once
  auto head = ReadHead(path, 64 * 1024);  // never the whole file: it may be a checkpoint
  if (!head) return head.error().message;
  const std::string& d = *head;
  if (d.empty()) return "empty file";
  size_t probe = std::min<size_t>(d.size(), 4096), controls = 0;
  for (size_t i = 0; i < probe; ++i) {
    unsigned char c = static_cast<unsigned char>(d[i]);
    if (c == 0 || (c < 0x20 && c != '\n' && c != '\r' && c != '\t')) ++controls;
  }
  if (controls * 20 > probe) return "binary data, not a text log";
  if (d.find("# Avg bus bandwidth") != std::string::npos || d.find("#  Rank") != std::string::npos)
    return "nccl-tests output without NCCL debug lines (rerun with NCCL_DEBUG=INFO)";
  return "no NCCL log line in it (expected lines like 'host:pid:tid [dev] NCCL INFO ...'; "
         "rerun the job with NCCL_DEBUG=INFO)";
}

int RunLogs(const LogsOptions& o) {
  ingest::LoadOptions load;
  load.only = {InputKind::kNcclLog};
  auto job = ingest::LoadInputs(o.paths, load);
  if (!job) return ReportError(job.error());
  if (job->nccl.nccl_lines == 0) {
    std::vector<std::string> files;
    for (const auto& s : job->skipped) files.push_back(s.path);
    for (const auto& f : job->nccl.files) files.push_back(f);
    if (files.size() == 1)
      return ReportError(MakeError(ErrorCode::kBadInput, WhyNotNcclLog(files[0]), {files[0]}));
    std::string msg =
        "none of the " + std::to_string(files.size()) + " input files holds an NCCL log line";
    for (size_t i = 0; i < files.size() && i < 5; ++i)
      msg += "\n  " + files[i] + ": " + WhyNotNcclLog(files[i]);
    return ReportError(MakeError(ErrorCode::kBadInput, msg, {}));
  }
  // Logs alone: the other sources are not expected here.
  analysis::AnalysisInput input(*job);
  auto diag = diagnose::Diagnose(input, diagnose::DiagnoseOptions::Only({Source::kLogs}));
  auto rep = report::MakeReport("logs", *job, std::move(diag));
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
