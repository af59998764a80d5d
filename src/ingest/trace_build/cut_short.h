// A trace file that ends before the trace does: the job was killed, hung or ran out of memory
// while the profiler wrote it (plain JSON cut at any byte, a gzip stream cut short). Every event
// before the cut was read (kineto/json/document_reader.h); this says what the cut took.
#pragma once

#include <cstdint>

#include "base/diagnostics.h"
#include "model/trace.h"

namespace commdx::ingest::trace_build {

// Where and how a file was cut (ReaderStats::cut).
struct CutShort {
  bool cut = false;
  bool in_events = false;  // inside traceEvents: events were lost
  bool gzip = false;       // the gzip stream itself ends early
  uint64_t offset = 0;     // where the first item not read whole starts (decompressed bytes)
  uint64_t bytes = 0;      // decompressed bytes read
};

// Marks the steps whose work the cut took (Step::cut: left out of the rank's mean) and notes
// the cut as kineto.trace_cut_short, with the file and byte offset. Needs the steps
// (DetectSteps).
void MarkCutShort(RankTrace& trace, const CutShort& cut, Diagnostics& quality);

}  // namespace commdx::ingest::trace_build
