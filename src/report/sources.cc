#include "report/sources.h"

#include "report/bench_tables.h"
#include "report/nccl_tables.h"
#include "report/topo_tables.h"
#include "report/trace_tables.h"

namespace commdx::report {

void AddSourceTables(const Job& job, const analysis::TraceFacts& facts, Report& report) {
  Table inputs{"inputs", "Inputs", {"file", "recognised as", "bytes"}, {"path", "kind", "bytes"},
               {},       ""};
  for (const auto& in : job.inputs)
    inputs.AddRow({in.path, InputKindsName(in.kinds), Cell::Int(static_cast<long long>(in.bytes))});
  report.tables.push_back(std::move(inputs));
  if (!job.nccl.empty()) AddNcclTables(job.nccl, report);
  if (!job.trace.empty()) AddTraceTables(job, facts, report);
  if (!job.bench.empty()) AddBenchTables(job.bench, report);  // nccl-tests output, saved results
  if (!job.topo.empty()) AddTopologyTables(job, report);      // nvidia-smi text, snapshots
  if (job.env.captured) AddEnvironmentTables(job, report);    // snapshots, per-rank env dumps
}

}  // namespace commdx::report
