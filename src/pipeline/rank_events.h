// Digested ranks' events, read again from their trace files (RankTrace::events_freed: the loader
// digests every rank where it is read and frees its events, so a job's events are never held at
// once). For the few ranks a chart draws, whose blocks name the kernels that ran there.
#pragma once

#include <optional>
#include <vector>

#include "model/trace.h"

namespace commdx::pipeline {

// For each rank, the rank with its events, read again from its file (the files in parallel);
// nullopt where the file is gone, is no longer the trace the rank was built from (its rank,
// time span, event count and size must match), or the rank still has its events (use it as it
// is). A rank read from a summary is found when the trace it was made from is still at its path.
// `threads` files are read at once (0 = hardware concurrency), as LoadOptions::threads.
std::vector<std::optional<RankTrace>> RankEvents(const std::vector<const RankTrace*>& ranks,
                                                 int threads = 0);

}  // namespace commdx::pipeline
