// What a Kineto event's "cat" says it is: CUDA's and other vendors' category names (ROCm's
// hip_runtime, MTIA's, XPU's, privateuse1 backends), compared as written in the file.
#pragma once

#include <string_view>

#include "ingest/trace_build/raw_event.h"

namespace commdx::ingest::kineto {

// kNone for an empty category, kUnknown for one not listed.
trace_build::EventCat EventCatOf(std::string_view cat);

}  // namespace commdx::ingest::kineto
