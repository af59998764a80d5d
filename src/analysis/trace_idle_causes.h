// GPU idle beyond data loading and syncs: the `alloc`, `host_gap` and `queued` parts of the one
// idle attribution (idle_attribution.h), per rank:
//   trace_allocator_churn.cc  trace.allocator_churn  GPU idle while the host is in the allocator
//   trace_host_gap.cc         trace.host_gap         GPU idle while the host is outside any op
//   trace_queued_idle.cc      trace.queued_idle      GPU idle with its next work already queued
// Thresholds are in each file and in docs/findings/trace.md.
#pragma once

#include <vector>

#include "analysis/registry.h"
#include "analysis/trace_facts.h"

namespace commdx::analysis {

std::vector<Finding> FindAllocatorChurn(const TraceSet& set, const TraceFacts& f, const Options& o);
std::vector<Finding> FindHostGap(const TraceSet& set, const TraceFacts& f, const Options& o);
std::vector<Finding> FindQueuedIdle(const TraceSet& set, const TraceFacts& f, const Options& o);

// Queued gaps shorter than this are the GPU's own latency between ops already queued (a few µs
// each; no healthy capture shows one over 20 µs): trace.queued_idle leaves them out.
constexpr int64_t kMinQueuedGapNs = 50'000;

}  // namespace commdx::analysis
