// bench.wide_tail: nccl-tests run with per-iteration timing (-I 1) whose 99th percentile at some
// size is far above its mean. docs/findings/bench.md.
#pragma once

#include <vector>

#include "analysis/registry.h"

namespace commdx::analysis {

std::vector<Finding> FindBenchWideTail(const Job& job, const Options& options);

}  // namespace commdx::analysis
