// `commdx trace FILE|FOLDER...`: PyTorch profiler (Kineto) traces or Nsight Systems reports alone —
// where each step's time goes, the communication pattern, bandwidth per collective, who waits for
// whom, and the trace findings.
#include <memory>

#include "analysis/analysis_input.h"
#include "base/file.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "diagnose/diagnosis.h"
#include "ingest/load_inputs.h"
#include "report/job_charts.h"
#include "report/trace_tables.h"

namespace commdx::cli {

namespace {

struct TraceOptions {
  std::vector<std::string> paths;
  int threads = 0;
  OutputOptions output;
};

int RunTrace(const TraceOptions& o) {
  // Files named on the command line are read as traces whatever they look like; files found in
  // folders only when they look like traces.
  ingest::LoadOptions load = ingest::ForcedKinds({InputKind::kKineto, InputKind::kNsys});
  load.threads = o.threads;
  auto loaded = ingest::LoadInputs(o.paths, load);
  if (!loaded) return ReportError(loaded.error());
  Job job = std::move(*loaded);
  if (job.trace.empty()) {
    // One file: why it was not read (an archive, a compression commdx does not open); several:
    // the first few reasons.
    if (job.skipped.size() == 1 && job.inputs.empty())
      return ReportError(MakeError(ErrorCode::kBadInput, job.skipped[0].reason,
                                   {job.skipped[0].path}));
    std::string msg =
        "no PyTorch profiler (Kineto) trace or Nsight Systems report found in the given input";
    for (size_t i = 0; i < job.skipped.size() && i < 5; ++i)
      msg += "\n  " + job.skipped[i].path + ": " + job.skipped[i].reason;
    return ReportError(
        MakeError(ErrorCode::kBadInput, msg, {o.paths.size() == 1 ? o.paths[0] : std::string()}));
  }
  analysis::AnalysisInput input(job);
  // The trace alone: the other sources are not expected here.
  auto diag = diagnose::Diagnose(input, diagnose::DiagnoseOptions::Only({Source::kTrace}));
  auto rep = report::MakeReport("trace", job, std::move(diag));
  const analysis::TraceFacts& facts = input.trace_facts();
  report::AddTraceTables(job, facts, rep);
  rep.charts = report::TraceCharts(job, facts);
  return EmitReport(rep, o.output);
}

}  // namespace

void AddTraceCommand(CLI::App& app, Action& run) {
  auto o = std::make_shared<TraceOptions>();
  auto* cmd = app.add_subcommand(
      "trace",
      "Analyse PyTorch profiler (Kineto) traces or Nsight Systems reports (SQLite export), one "
      "per rank: step breakdown, overlap, "
      "collectives and bandwidth, who waits for whom, host syncs, data stalls");
  cmd->add_option("paths", o->paths, "Trace files (.json, .json.gz, nsys .sqlite) or folders")
      ->required();
  cmd->add_option("--threads", o->threads, "Files parsed in parallel (default: all cores)");
  AddOutputFlags(*cmd, o->output);
  cmd->callback([&run, o] { run = [o] { return RunTrace(*o); }; });
}

}  // namespace commdx::cli
