// The per-source tables `commdx diagnose` shows next to the findings (what each source said).
#pragma once

#include "analysis/trace_facts.h"
#include "model/job.h"
#include "report/report.h"

namespace commdx::report {

// The inputs, then per source that is present: the NCCL tables (as `commdx logs` shows them) and
// the trace tables (as `commdx trace` shows them; `facts` are the job's, read only with traces).
void AddSourceTables(const Job& job, const analysis::TraceFacts& facts, Report& report);

}  // namespace commdx::report
