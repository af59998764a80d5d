// The analyzers of hangs and desyncs (NCCL COLL lines, Flight Recorder dumps, job logs), one per
// file hang_*.cc. docs/findings/hang.md says what each finding means and how it is found.
#pragma once

#include <vector>

#include "analysis/registry.h"

namespace commdx::analysis {

// hang.rank_behind and hang.desync from the COLL lines of each communicator's ranks.
std::vector<Finding> FindCallHang(const Job& job, const Options& options);
// hang.rank_behind, hang.desync, hang.stuck_collective and hang.watchdog_timeout from Flight
// Recorder dumps.
std::vector<Finding> FindFlightHang(const Job& job, const Options& options);
// hang.watchdog_timeout (and hang.rank_behind from the work status) from job logs: from the
// "Watchdog caught ... WorkNCCL(...)" lines, else from the work status lines alone ("Timeout at
// NCCL work: N", "failure detected by watchdog at work sequence id: N").
std::vector<Finding> FindWatchdogHang(const Job& job, const Options& options);
// Whether a job log names a failed work by its status line ("Timeout at NCCL work: N", ...).
bool HasWorkFailureStatus(const Job& job);
// hang.rank_behind and hang.desync from TORCH_DISTRIBUTED_DEBUG=DETAIL's checks in job logs
// (ranks that missed a monitored barrier, collective fingerprints that differ).
std::vector<Finding> FindDebugCheckHang(const Job& job, const Options& options);
// hang.watchdog_stuck (heartbeat monitor) and hang.watchdog_timeout from teardown lines in job
// logs that hold no watchdog timeout line of their own.
std::vector<Finding> FindWatchdogStall(const Job& job, const Options& options);
// hang.rank_behind, hang.desync and hang.stuck_collective from the Flight Recorder analyzer's
// text output.
std::vector<Finding> FindFrAnalysisHang(const Job& job, const Options& options);

}  // namespace commdx::analysis
