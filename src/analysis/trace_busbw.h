// Achieved bandwidth of every collective instance, by the nccl-tests definitions: algbw = bytes /
// time (decimal GB/s), busbw = algbw x factor (all_reduce 2(n-1)/n; all_gather, reduce_scatter,
// alltoall (n-1)/n; broadcast, reduce, send/recv 1). Time is the transfer alone (end - last
// arrival) where the ranks were matched, else the kernel's duration. Compared with what the link
// should give at that size: t(S) = latency + S_bus / peak (an alpha-beta model of the link).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/trace_cross_rank.h"
#include "model/trace.h"

namespace commdx::analysis {

struct LinkExpectation {
  std::string what;            // "NVLink4 (NVIDIA H200), within one node"
  double peak_busbw_gbps = 0;  // large-message all_reduce busbw a healthy link gives; 0 = unknown
  double latency_us = 0;       // small-message time
  bool known() const { return peak_busbw_gbps > 0; }
  // Expected busbw for a message of `bus_bytes` (bytes x factor).
  double ExpectedBusBw(double bus_bytes) const;
  // Bus bytes at which the link reaches 80% of its peak: 4 x latency x peak.
  double EfficientBusBytes() const { return 4.0 * latency_us * 1e-6 * peak_busbw_gbps * 1e9; }
};

// From the GPU names in deviceProperties; unknown for groups larger than the GPUs one process
// sees (they span nodes, and the network is not in the trace).
LinkExpectation ExpectLink(const TraceSet& set);

struct CollectiveBw {
  int trace = -1;  // the rank whose numbers these are (the late one for matched instances)
  int32_t coll = -1;
  int64_t step = -1;
  CollectiveType type = CollectiveType::kUnknown;
  uint64_t bytes = 0;
  int nranks = 0;
  int channels = 0;
  int64_t time_ns = 0;
  bool transfer_only = false;  // time excludes waiting for peers
  double algbw_gbps = 0;
  double busbw_gbps = 0;
  double expected_busbw_gbps = 0;  // 0 when the link is unknown
};

std::vector<CollectiveBw> MeasureBandwidth(const TraceSet& set, const CrossRank& cross,
                                           const LinkExpectation& link);

}  // namespace commdx::analysis
