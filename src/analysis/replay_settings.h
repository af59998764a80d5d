// The NCCL settings a job ran with that `commdx bench replay` applies to its replay, so that
// communication slowed by a setting (NCCL_MAX_NCHANNELS=1, NCCL_PROTO=Simple) is slow replayed
// too: only settings that change how NCCL moves data, never where (interfaces, HCAs, GPUs and
// host ids are the machine's). docs/replay.md lists them.
#pragma once

#include <string_view>
#include <vector>

#include "model/job.h"
#include "model/replay_plan.h"

namespace commdx::analysis {

// Whether `name` is one of the settings a replay takes from the job.
bool IsReplayedSetting(std::string_view name);

// The job's values of those settings: NCCL's own "set by environment" lines first, then the
// environment snapshots (per-rank env dumps). One value per name: the first seen.
std::vector<ReplaySetting> JobNcclSettings(const Job& job);

}  // namespace commdx::analysis
