// hang.desync and hang.rank_behind read from where each rank's watchdog timed out: the ranks of
// one process group that timed out in different collectives at one sequence number, or at
// different sequence numbers (hang_watchdog.cc raises the timeout itself).
#pragma once

#include <vector>

#include "analysis/registry.h"

namespace commdx::analysis {

std::vector<Finding> FindTimeoutSkew(const Job& job);

}  // namespace commdx::analysis
