// The thresholds of the small-collective advice, shared by trace.small_collectives (profiler
// traces) and comm.small_collectives (NCCL COLL lines): when gradient collectives are too many
// and too small, and what bucket size to recommend.
#pragma once

#include <algorithm>
#include <cmath>

#include "model/collective.h"

namespace commdx::analysis::small_coll {

inline constexpr double kExcessCalls = 1.5;  // calls >= 1.5 x what recommended buckets need
inline constexpr double kMinCallsPerStep = 8;
inline constexpr double kMinBucketBytes = 25.0 * (1 << 20);  // DDP's default bucket
inline constexpr double kDefaultLatencyUs = 15;              // when the link is unknown
inline constexpr double kDefaultCrossoverBytes = 4e6;        // busbw bytes, link unknown

inline bool IsGradient(CollectiveType t) {
  return t == CollectiveType::kAllReduce || t == CollectiveType::kReduceScatter ||
         t == CollectiveType::kAllGather;
}

// The efficient size rounded up to a power of two MiB, at least kMinBucketBytes.
inline double RecommendedBucket(double efficient_bytes) {
  return std::max(
      kMinBucketBytes,
      std::exp2(std::ceil(std::log2(std::max(efficient_bytes, 1.0) / (1 << 20)))) * (1 << 20));
}

}  // namespace commdx::analysis::small_coll
