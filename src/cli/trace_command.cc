// `commdx trace FILE|FOLDER...`: PyTorch profiler (Kineto) traces alone — where each step's time
// goes, the communication pattern, bandwidth per collective, who waits for whom, and the trace
// findings.
#include <filesystem>
#include <memory>

#include "analysis/trace_analyzers.h"
#include "analysis/trace_facts.h"
#include "base/file.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "diagnose/diagnosis.h"
#include "ingest/kineto/kineto_importer.h"
#include "report/job_charts.h"
#include "report/trace_tables.h"

namespace commdx::cli {

namespace {

struct TraceOptions {
  std::vector<std::string> paths;
  int threads = 0;
  OutputOptions output;
};

// Files named on the command line are parsed whatever they look like; files found in folders
// only when they look like traces.
Result<std::vector<ingest::KinetoInput>> Inputs(const std::vector<std::string>& paths) {
  std::vector<ingest::KinetoInput> out;
  for (const auto& p : paths) {
    std::error_code ec;
    if (!std::filesystem::is_directory(p, ec)) {
      if (!std::filesystem::exists(p, ec))
        return MakeError(ErrorCode::kBadInput, "no such file or folder", {p});
      out.push_back({p, true});
      continue;
    }
    COMMDX_ASSIGN_OR_RETURN(auto files, ExpandInputPaths({p}));
    for (auto& f : files) out.push_back({std::move(f), false});
  }
  return out;
}

int RunTrace(const TraceOptions& o) {
  auto inputs = Inputs(o.paths);
  if (!inputs) return ReportError(inputs.error());
  Job job;
  ingest::KinetoLoadOptions load;
  load.threads = o.threads;
  if (auto st = ingest::LoadKinetoFiles(*inputs, job, load); !st) return ReportError(st.error());
  if (job.trace.empty())
    return ReportError(MakeError(ErrorCode::kBadInput,
                                 "no PyTorch profiler (Kineto) trace found in the given input",
                                 {o.paths.size() == 1 ? o.paths[0] : std::string()}));
  analysis::TraceFacts facts = analysis::ComputeTraceFacts(job);
  auto findings = analysis::FindTraceIssuesWith(job, facts, {});
  for (auto& f : findings) analysis::ApplyCatalogueDefaults(f);
  auto diag = diagnose::Diagnose(job, std::move(findings));
  diag.not_checked.clear();  // the other sources are not expected here
  auto rep = report::MakeReport("trace", job, std::move(diag));
  rep.include_root_cause = false;
  report::AddTraceTables(job, facts, rep);
  rep.charts = report::TraceCharts(job, facts);
  return EmitReport(rep, o.output);
}

}  // namespace

void AddTraceCommand(CLI::App& app, Action& run) {
  auto o = std::make_shared<TraceOptions>();
  auto* cmd = app.add_subcommand(
      "trace",
      "Analyse PyTorch profiler (Kineto) traces, one per rank: step breakdown, overlap, "
      "collectives and bandwidth, who waits for whom, host syncs, data stalls");
  cmd->add_option("paths", o->paths, "Trace files (.json, .json.gz) or folders")->required();
  cmd->add_option("--threads", o->threads, "Files parsed in parallel (default: all cores)");
  AddOutputFlags(*cmd, o->output);
  cmd->callback([&run, o] { run = [o] { return RunTrace(*o); }; });
}

}  // namespace commdx::cli
