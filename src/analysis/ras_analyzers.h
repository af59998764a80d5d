// The analyzer of NCCL RAS reports (ras_ranks.cc). docs/findings/ras.md says what each finding
// means and how it is found.
#pragma once

#include <vector>

#include "analysis/registry.h"

namespace commdx::analysis {

// ras.dead_rank, ras.missing_rank (one per process, every communicator it is missing from) and
// ras.mismatch (ranks of one communicator that launched different numbers of collectives).
std::vector<Finding> FindRasRanks(const Job& job, const Options& options);
// ras.consistent_hang: every RAS report of the job consistent (all ranks alive, the same
// collective counts) while its job log shows a watchdog timeout or teardown.
std::vector<Finding> FindRasConsistentHang(const Job& job, const Options& options);

}  // namespace commdx::analysis
