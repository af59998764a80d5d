// Training steps of one rank: ProfilerStep#N where the profiler's schedule wrote them, else the
// user's repeating iteration annotation, else Optimizer.step ends, else the repeating sequence
// of collectives, else the whole trace as one step (step_sources.h). Each step also gets its
// window on the GPU timeline (trace-metrics.md). Weaker sources are said in the input quality.
#pragma once

#include "base/diagnostics.h"
#include "model/trace.h"

namespace commdx::ingest::trace_build {

// Fills trace.main_thread, trace.steps, trace.step_source, trace.step_name; notes a weaker source,
// no boundaries and a truncated last step in `quality`. Needs sorted events with launches linked
// and collectives built (RankBuilder::Finish).
void DetectSteps(RankTrace& trace, Diagnostics& quality);

// Sets Step::start_ns/end_ns from the CPU ranges: window i starts when the GPU starts the first
// work launched in step i, or when the CPU starts step i if the GPU was already idle by then
// (never before the end of step i-1's GPU work); it ends where window i+1 starts; the last one
// ends at the later of its GPU work and its CPU end. Windows tile the GPU timeline.
void ComputeGpuWindows(RankTrace& trace);

}  // namespace commdx::ingest::trace_build
