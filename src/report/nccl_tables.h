// Tables `commdx logs` shows from the NCCL setup: communicators, transport matrix, NICs,
// the calls of COLL lines per communicator, overrides, warnings.
#pragma once

#include "model/nccl_setup.h"
#include "report/report.h"

namespace commdx::report {

void AddNcclTables(const NcclSetup& nccl, Report& report);

}  // namespace commdx::report
