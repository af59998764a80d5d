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

Result<TimeMatrix> MeasureAdaptive(const BatchFn& run, const RunOptions& o, int fixed_batch) {
  TimeMatrix all;
  if (o.iters > 0 && fixed_batch <= 0) {
    COMMDX_ASSIGN_OR_RETURN(all, run(o.iters));
    return all;
  }
  int target = o.iters > 0 ? o.iters : o.max_iters;
  int batch = fixed_batch > 0 ? fixed_batch : std::max(1, o.min_iters);
  double spent_ns = 0;
  double prev_median = -1;
  int samples = 0;
  while (true) {
    COMMDX_ASSIGN_OR_RETURN(TimeMatrix t, run(batch));
    spent_ns += BatchNs(t);
    AppendBatch(all, t);
    samples += batch;
    if (samples >= target) break;
    if (o.iters > 0) {  // fixed count in graph batches
      batch = fixed_batch;
      continue;
    }
    double median = Summarize(all).median_ns;
    bool stable = prev_median > 0 && std::fabs(median - prev_median) <= o.stable_rel * prev_median;
    if (samples >= o.min_iters && (stable || spent_ns >= o.budget_ms * 1e6)) break;
    prev_median = median;
    batch = fixed_batch > 0 ? fixed_batch : std::min(samples, target - samples);
  }
  return all;
}

}  // namespace commdx::bench
