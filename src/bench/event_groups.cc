#include "bench/event_groups.h"

#include <algorithm>

namespace commdx::bench {

TimeMatrix SpreadGroups(const TimeMatrix& groups, int iters, int stride) {
  if (stride <= 1) return groups;
  TimeMatrix out;
  out.reserve(groups.size());
  for (const auto& g : groups) {
    std::vector<double> row;
    row.reserve(static_cast<size_t>(std::max(iters, 0)));
    for (size_t j = 0; j < g.size(); ++j) {
      int first = static_cast<int>(j) * stride;
      int n = std::min(stride, iters - first);
      if (n <= 0) break;
      row.insert(row.end(), static_cast<size_t>(n), g[j] / n);
    }
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace commdx::bench
