// The per-source tables `commdx diagnose` shows next to the findings (what each source said).
#pragma once

#include "analysis/trace_facts.h"
#include "model/job.h"
#include "report/report.h"

namespace commdx::report {

// The inputs, then per source that is present: the NCCL tables (as `commdx logs` shows them),
// the trace tables (as `commdx trace` shows them; `facts` are the job's, read only with traces),
// the benchmark tables (nccl-tests output, as `commdx bench` shows a run), and the topology and
// environment tables (nvidia-smi text, snapshots, env dumps, as `commdx topo` / `env` show them).
void AddSourceTables(const Job& job, const analysis::TraceFacts& facts, Report& report);

}  // namespace commdx::report
