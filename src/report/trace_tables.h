// Tables `commdx trace` shows: the ranks read, the step breakdown per rank (mean and per step),
// the communication pattern per process group, the slowest collectives, who was late per step,
// and the HTA-comparable numbers (JSON key "hta_compat").
#pragma once

#include "analysis/table_data.h"
#include "analysis/trace_facts.h"
#include "model/trace.h"
#include "report/report.h"

namespace commdx::report {

// `facts` give the step breakdown; `data` the rest (analysis/table_data.h).
void AddTraceTables(const TraceSet& set, const analysis::TraceFacts& facts,
                    const analysis::TraceTableData& data, Report& report);

}  // namespace commdx::report
