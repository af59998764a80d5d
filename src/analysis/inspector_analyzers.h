// The analyzers of NCCL Inspector records (inspector_*.cc). docs/findings/inspector.md says what
// each finding means and how it is found.
#pragma once

#include <vector>

#include "analysis/expected_bandwidth.h"
#include "analysis/registry.h"

namespace commdx::analysis {

// inspector.late_rank: the rank the others wait for, per communicator.
std::vector<Finding> FindInspectorLateRank(const Job& job, const Options& options);
// inspector.comm_summary (each communicator: kind, collectives, bus bandwidth per size) and
// inspector.slow_collective_bw (transfer bandwidth well under the link's, where it is known).
std::vector<Finding> FindInspectorBandwidth(const Job& job, const Options& options);
// The same two from the aggregated Prometheus output of NCCL 2.30 on (InspectorBucket): per
// communicator, per (operation, size range, algorithm_protocol) across GPUs.
std::vector<Finding> FindInspectorBuckets(const Job& job, const Options& options);

// Whether a communicator of `n_ranks` ranks on `nnodes` nodes is held to `expected`: it must be
// known, and be for its kind of link (one node's GPU links, or the network between nodes).
bool HeldTo(const ExpectedBandwidth& expected, int n_ranks, int nnodes);
// What both sources' inspector.slow_collective_bw share: the fix, the metrics, the confidence.
void CompleteSlowBandwidth(Finding& f, double busbw_gbps, uint64_t bytes,
                           const ExpectedBandwidth& expected);

}  // namespace commdx::analysis
