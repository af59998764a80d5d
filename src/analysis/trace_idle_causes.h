// GPU idle with a cause the user can fix, beyond data loading and syncs: the `alloc` and
// `host_gap` parts of the one idle attribution (idle_attribution.h), per rank:
//   trace_allocator_churn.cc  trace.allocator_churn  GPU idle while the host is in the allocator
//   trace_host_gap.cc         trace.host_gap         GPU idle while the host is outside any op
// Thresholds are in each file and in docs/findings/trace.md.
#pragma once

#include <vector>

#include "analysis/registry.h"
#include "analysis/trace_facts.h"

namespace commdx::analysis {

std::vector<Finding> FindAllocatorChurn(const TraceSet& set, const TraceFacts& f, const Options& o);
std::vector<Finding> FindHostGap(const TraceSet& set, const TraceFacts& f, const Options& o);

}  // namespace commdx::analysis
