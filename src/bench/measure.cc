#include "bench/measure.h"

#include <algorithm>
#include <cmath>

#include "bench/stats.h"

namespace commdx::bench {

namespace {
double BatchNs(const TimeMatrix& batch) {
  double worst = 0;
  for (const auto& r : batch) {
    double s = 0;
    for (double t : r) s += t;
    worst = std::max(worst, s);
  }
  return worst;
}
}  // namespace

Result<TimeMatrix> MeasureAdaptive(const BatchFn& run, const RunOptions& o, int fixed_batch,
                                   int max_batch) {
  TimeMatrix all;
  bool fixed = o.iters > 0;
  int target = fixed ? o.iters : o.max_iters;
  auto clamp = [&](int b) { return max_batch > 0 ? std::min(b, max_batch) : b; };
  int batch = fixed_batch > 0 ? fixed_batch : clamp(fixed ? o.iters : std::max(1, o.min_iters));
  double spent_ns = 0;
  double prev_median = -1;
  int samples = 0;
  while (true) {
    COMMDX_ASSIGN_OR_RETURN(TimeMatrix t, run(batch));
    spent_ns += BatchNs(t);
    AppendBatch(all, t);
    samples += batch;
    if (samples >= target) break;
    if (fixed) {
      batch = fixed_batch > 0 ? fixed_batch : clamp(target - samples);
      continue;
    }
    double median = Summarize(all).median_ns;
    // Stability is judged on at least two batches and twice the minimum count, so a slow start
    // (first use of a connection) cannot pass for a stable median.
    bool stable = prev_median > 0 && samples >= 2 * o.min_iters &&
                  std::fabs(median - prev_median) <= o.stable_rel * prev_median;
    if (samples >= o.min_iters && (stable || spent_ns >= o.budget_ms * 1e6)) break;
    prev_median = median;
    batch = fixed_batch > 0 ? fixed_batch : clamp(std::min(samples, target - samples));
  }
  return all;
}

}  // namespace commdx::bench
