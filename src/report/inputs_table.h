// The table of the files a run read and what each was recognised as (`commdx diagnose`).
#pragma once

#include <vector>

#include "model/job.h"
#include "report/report.h"

namespace commdx::report {

void AddInputsTable(const std::vector<InputFile>& inputs, Report& report);

}  // namespace commdx::report
