// Tables `commdx trace` shows: the ranks read, the step breakdown per rank (mean and per step),
// the communication pattern per process group, the slowest collectives, who was late per step,
// and the HTA-comparable numbers (JSON key "hta_compat").
#pragma once

#include "analysis/trace_facts.h"
#include "model/job.h"
#include "report/report.h"

namespace commdx::report {

void AddTraceTables(const Job& job, const analysis::TraceFacts& facts, Report& report);

}  // namespace commdx::report
