// The per-rank step timeline of the HTML report: one representative step, three lanes per rank —
// compute (compute kernels; copies/sets where no compute runs), communication (NCCL kernels,
// overlapped with compute or exposed) and idle (GPU idle while the main thread loads data, or
// otherwise waiting on the host). Built from the analysis layer's timelines and step breakdown.
#pragma once

#include <cstddef>
#include <optional>

#include "analysis/trace_facts.h"
#include "model/job.h"
#include "report/charts.h"

namespace commdx::pipeline {

struct StepTimelineOptions {
  // At most this many ranks get lanes; beyond it, half are the ranks that waited most in the step
  // (exposed communication + idle) and half those that waited least (the ones others wait for).
  size_t max_ranks = 16;
  // Segments of one kind closer than step/resolution are merged into one (its tooltip says how
  // many and how busy), so a lane holds at most about `resolution` segments per kind whatever
  // the trace's size.
  int resolution = 300;
  // Files read at once when the drawn ranks' events are read again (0 = hardware concurrency).
  int threads = 0;
};

// The step shown is the median of the job's complete steps, ordered by their time on the slowest
// rank: a typical step, not the first one that warms up nor an outlier. Times are relative to
// each rank's own step start (clocks of different hosts differ). nullopt without GPU steps.
std::optional<report::Timeline> StepTimelineChart(const Job& job, const analysis::TraceFacts& facts,
                                                  const StepTimelineOptions& options = {});

// Merges intervals of one kind whose gap is below `min_gap_ns` into segments of `kind`,
// shifted by -origin_ns; each segment's label says its busy time and how many intervals it holds.
std::vector<report::Segment> MergedSegments(const analysis::Intervals& x, int64_t min_gap_ns,
                                            int64_t origin_ns, const char* kind, const char* what);

}  // namespace commdx::pipeline
