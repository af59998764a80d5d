#include "pipeline/pipeline.h"

#include <algorithm>

#include "analysis/analysis_input.h"
#include "analysis/rank_measures.h"
#include "analysis/table_data.h"
#include "pipeline/job_charts.h"
#include "pipeline/nothing_read.h"
#include "pipeline/summary_digest.h"
#include "report/bench_tables.h"
#include "report/inputs_table.h"
#include "report/nccl_tables.h"
#include "report/replay_tables.h"
#include "report/topo_tables.h"
#include "report/trace_tables.h"

namespace commdx::pipeline {

namespace {

bool Present(Part part, const Job& job, bool live) {
  switch (part) {
    case Part::kInputs:
      return true;
    case Part::kNccl:
      return !job.nccl.empty();
    case Part::kTrace:
      return !job.trace.empty();
    case Part::kBench:
      return !job.bench.empty();
    case Part::kReplay:
      return !job.replay.empty();
    case Part::kTopology:
      return live || !job.topo.empty();
    case Part::kEnvironment:
      return live || job.env.captured;
  }
  return false;
}

// The parts of the request whose source is present, in its order.
std::vector<Part> Shown(const Request& request, const Job& job) {
  std::vector<Part> shown;
  for (Part p : request.parts)
    if (Present(p, job, request.live)) shown.push_back(p);
  return shown;
}

analysis::TableDataRequest DataFor(const std::vector<Part>& shown, const Request& request,
                                   const Job& job) {
  auto has = [&shown](Part p) { return std::find(shown.begin(), shown.end(), p) != shown.end(); };
  analysis::TableDataRequest which;
  which.trace = has(Part::kTrace);
  which.bench = !job.bench.empty() && (has(Part::kBench) || request.charts);
  which.topology = has(Part::kTopology);
  which.environment = has(Part::kEnvironment);
  return which;
}

void AddPart(Part part, const analysis::AnalysisInput& input, const analysis::TableData& data,
             report::Report& rep) {
  const Job& job = input.job();
  switch (part) {
    case Part::kInputs:
      return report::AddInputsTable(job.inputs, rep);
    case Part::kNccl:
      return report::AddNcclTables(job.nccl, rep);
    case Part::kTrace:
      return report::AddTraceTables(job.trace, input.trace_facts(), data.trace, rep);
    case Part::kBench:  // nccl-tests output, saved results, a live run
      return report::AddBenchTables(job.bench, data.bench, rep);
    case Part::kReplay:  // a live `bench replay`, or its saved snapshot
      return report::AddReplayTables(job.replay, input.replay_verdicts(), rep);
    case Part::kTopology:  // nvidia-smi text, snapshots, a live probe
      return report::AddTopologyTables(job, data.topology, rep);
    case Part::kEnvironment:  // snapshots, per-rank env dumps, a live probe
      return report::AddEnvironmentTables(job, data.variables, rep);
  }
}

report::Report ReportOn(const Request& request, const Job& job) {
  // Computed once, on first use: the analyzers, the table data and the charts read the same.
  analysis::AnalysisInput input(job, request.load.threads);
  diagnose::Diagnosis diag = diagnose::Diagnose(input, request.diagnose);
  diag.not_checked.insert(diag.not_checked.end(), request.not_checked.begin(),
                          request.not_checked.end());
  report::Report rep = report::MakeReport(request.command, job, std::move(diag));
  const std::vector<Part> shown = Shown(request, job);
  const analysis::TableData data = analysis::TableDataOf(input, DataFor(shown, request, job));
  for (Part p : shown) AddPart(p, input, data, rep);
  if (request.charts) {
    if (!job.trace.empty())
      rep.charts.Append(TraceCharts(job, input.trace_facts(), request.load.threads));
    rep.charts.Append(BenchCharts(job.bench, data.bench));
  }
  return rep;
}

}  // namespace

Result<Job> Load(const Request& request) {
  ingest::LoadOptions load = request.load;
  // Each trace's rank is digested on the worker that read it (its timeline and measures: all the
  // analyses take from its events) and its events freed, so that a job's events are never held
  // all at once. The step timeline chart (HTML) names the longest kernel of each block: it reads
  // the events of the few ranks it draws again (rank_events.h).
  if (!load.rank_built) load.rank_built = [](RankTrace& t) { analysis::DigestRank(t, true); };
  UseSummaryDigests();  // a summary's ranks come digested, their events long gone
  COMMDX_ASSIGN_OR_RETURN(Job job, ingest::LoadInputs(request.paths, load));
  COMMDX_TRY(CheckSomethingRead(request.needs, request.paths, job));
  return job;
}

Result<Outcome> Run(Request request) {
  Outcome out;
  if (request.job) {
    out.job = std::move(*request.job);
  } else {
    COMMDX_ASSIGN_OR_RETURN(out.job, Load(request));
  }
  out.report = ReportOn(request, out.job);
  return out;
}

}  // namespace commdx::pipeline
