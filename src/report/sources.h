// The per-source tables `commdx diagnose` shows next to the findings (what each source said).
#pragma once

#include "model/job.h"
#include "report/report.h"

namespace commdx::report {

void AddSourceTables(const Job& job, Report& report);

}  // namespace commdx::report
