// The traces of one job taken together, once every file is read (trace_set.cc says what is noted).
#pragma once

#include "model/job.h"

namespace commdx::ingest {

// Orders job.trace.ranks by rank, numbers traces whose rank is unknown after the known ones,
// notes duplicate ranks, traces of different jobs and missing ranks, and unions the process
// groups. Called after the traces are loaded (once, by ingest::LoadInputs; tests that call
// ParseKineto call it themselves).
void FinishTraceSet(Job& job);

}  // namespace commdx::ingest
