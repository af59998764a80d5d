// Tables of `commdx bench replay` runs (and of saved replays diagnose reads): per replayed
// process group, each call shape in the job against the same shape replayed alone and inside
// the replayed sequence, and the verdict per group (analysis/replay_verdict.h).
#pragma once

#include <vector>

#include "analysis/replay_verdict.h"
#include "model/replay_result.h"
#include "report/report.h"

namespace commdx::report {

// `verdicts`: AnalysisInput::replay_verdicts() of the same job.
void AddReplayTables(const std::vector<ReplayResult>& results,
                     const std::vector<analysis::ReplayVerdict>& verdicts, Report& report);

}  // namespace commdx::report
