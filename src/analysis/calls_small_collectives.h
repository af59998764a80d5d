// comm.small_collectives from NCCL COLL lines, and the size histogram behind it.
#pragma once

#include <array>
#include <map>
#include <string>
#include <vector>

#include "analysis/registry.h"
#include "model/job.h"

namespace commdx::analysis {

// Gradient collectives of one communicator rank by size: [0] below 64 KiB, [1] below the
// latency crossover, [2] below the recommended bucket, [3] at or above it.
struct CallSizeHistogram {
  std::map<std::string, std::array<size_t, 4>> by_op;  // "all_reduce" -> counts
  size_t calls = 0;
  size_t latency_bound = 0;  // bins 0 and 1
  double bytes = 0;
  double median_bytes = 0;
  double bucket_bytes = 0;  // the recommended bucket
};

CallSizeHistogram SizeHistogram(const NcclCallStream& stream);

std::vector<Finding> FindCallSizes(const Job& job, const Options& options);

}  // namespace commdx::analysis
