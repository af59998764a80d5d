// The collective size histogram of the HTML report: calls per power-of-two size bin, one chart
// per process group and collective type, from the rank that issued the most collectives (every
// rank of a group issues the same calls; the trace_collectives table counts the same way).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/trace.h"
#include "report/charts.h"

namespace commdx::pipeline {

// Groups with the most calls first, at most `max_charts`. Bin i holds sizes in [2^k, 2^(k+1))
// for consecutive k from the smallest size seen to the largest (empty bins included, so the x
// axis stays logarithmic). Collectives of unknown size (0 bytes) are counted in the note.
std::vector<report::Histogram> CollectiveSizeHistograms(const TraceSet& set, size_t max_charts = 6);

}  // namespace commdx::pipeline
