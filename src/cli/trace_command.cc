// `commdx trace FILE|FOLDER...`: PyTorch profiler (Kineto) traces or Nsight Systems reports alone —
// where each step's time goes, the communication pattern, bandwidth per collective, who waits for
// whom, and the trace findings.
#include <memory>

#include "cli/commands.h"
#include "cli/output.h"

namespace commdx::cli {

namespace {

struct TraceOptions {
  std::vector<std::string> paths;
  int threads = 0;
  OutputOptions output;
};

int RunTrace(const TraceOptions& o) {
  pipeline::Request request;
  request.command = "trace";
  request.paths = o.paths;
  // Files named on the command line are read as traces whatever they look like; files found in
  // folders only when they look like traces.
  request.load = ingest::ForcedKinds({InputKind::kKineto, InputKind::kNsys});
  request.load.threads = o.threads;
  request.needs = pipeline::Needs::kTrace;
  // The trace alone: the other sources are not expected here.
  request.diagnose = diagnose::DiagnoseOptions::Only({Source::kTrace});
  request.parts = {pipeline::Part::kTrace};
  request.charts = true;
  return RunAndEmit(std::move(request), o.output);
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
  cmd->add_option("--threads", o->threads, "Worker threads for parsing files and analysing ranks (default: all cores)");
  AddOutputFlags(*cmd, o->output);
  cmd->callback([&run, o] { run = [o] { return RunTrace(*o); }; });
}

}  // namespace commdx::cli
