// Training steps of one rank: ProfilerStep#N where the profiler's schedule wrote them, else a
// repeating top-level user annotation, else the optimizer step as the boundary, else the whole
// trace as one step. Each step also gets its window on the GPU timeline (trace-metrics.md).
#pragma once

#include "model/trace.h"

namespace commdx::ingest::kineto {

// Fills trace.main_thread, trace.steps, trace.step_source, trace.step_name. Needs sorted events
// with launches linked (RankBuilder::SortAndLink).
void DetectSteps(RankTrace& trace);

// Sets Step::start_ns/end_ns from the CPU ranges: window i starts when the GPU starts the first
// work launched in step i, or when the CPU starts step i if the GPU was already idle by then
// (never before the end of step i-1's GPU work); it ends where window i+1 starts; the last one
// ends at the later of its GPU work and its CPU end. Windows tile the GPU timeline.
void ComputeGpuWindows(RankTrace& trace);

}  // namespace commdx::ingest::kineto
