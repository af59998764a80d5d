#include "bench/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace commdx::bench {

double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  double pos = q * static_cast<double>(v.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, v.size() - 1);
  double frac = pos - static_cast<double>(lo);
  return v[lo] + (v[hi] - v[lo]) * frac;
}

double Median(std::vector<double> v) { return Percentile(std::move(v), 0.5); }

void AppendBatch(TimeMatrix& all, const TimeMatrix& batch) {
  if (all.size() < batch.size()) all.resize(batch.size());
  for (size_t r = 0; r < batch.size(); ++r)
    all[r].insert(all[r].end(), batch[r].begin(), batch[r].end());
}

SampleSummary Summarize(const TimeMatrix& times) {
  SampleSummary s;
  double worst = -1;
  for (size_t r = 0; r < times.size(); ++r) {
    if (times[r].empty()) continue;
    double m = Median(times[r]);
    if (m > worst) {
      worst = m;
      s.slowest_rank = static_cast<int>(r);
    }
  }
  if (s.slowest_rank < 0) return s;
  const auto& t = times[static_cast<size_t>(s.slowest_rank)];
  s.median_ns = worst;
  s.p10_ns = Percentile(t, 0.1);
  s.p90_ns = Percentile(t, 0.9);
  s.samples = static_cast<int>(t.size());
  return s;
}

}  // namespace commdx::bench
