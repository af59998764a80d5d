// Steps from the repeating sequence of a rank's collectives, when nothing on the CPU timeline
// marks iterations (trace-metrics.md, "Steps").
#include <algorithm>
#include <cmath>
#include <tuple>

#include "ingest/trace_build/step_sources.h"

namespace commdx::ingest::trace_build {

namespace {

using Key = std::tuple<CollectiveType, uint64_t, int32_t>;

// Start-to-start intervals of one period must not vary by more than this (coefficient of
// variation): a period that splits iterations unevenly (one all_reduce of four) is not one.
constexpr double kMaxIntervalCv = 0.25;

double IntervalCv(const std::vector<int64_t>& at) {
  if (at.size() < 3) return 1e9;
  double sum = 0, sq = 0;
  const double n = static_cast<double>(at.size() - 1);
  for (size_t i = 1; i < at.size(); ++i) sum += static_cast<double>(at[i] - at[i - 1]);
  const double mean = sum / n;
  if (mean <= 0) return 1e9;
  for (size_t i = 1; i < at.size(); ++i) {
    double d = static_cast<double>(at[i] - at[i - 1]) - mean;
    sq += d * d;
  }
  return std::sqrt(sq / n) / mean;
}

// Boundaries (issue times) for period p over keys[from..]: one per repetition, at the phase
// whose collective follows the longest gaps (the iteration's start, where the forward pass
// issues no collectives).
std::vector<int64_t> Boundaries(const std::vector<int64_t>& issue, size_t from, size_t p) {
  size_t best_phase = 0;
  int64_t best_gap = -1;
  for (size_t phase = 0; phase < p; ++phase) {
    int64_t gap = 0;
    for (size_t i = from + phase; i < issue.size(); i += p)
      if (i > 0) gap += issue[i] - issue[i - 1];
    if (gap > best_gap) best_gap = gap, best_phase = phase;
  }
  std::vector<int64_t> at;
  for (size_t i = from + best_phase; i < issue.size(); i += p) at.push_back(issue[i]);
  return at;
}

}  // namespace

bool StepsFromCollectives(RankTrace& t) {
  std::vector<Key> keys;
  std::vector<int64_t> issue;
  for (const auto& c : t.collectives) {
    if (c.issue_ns < 0) continue;  // issued before the trace began
    keys.emplace_back(c.type, c.bytes, c.pg);
    issue.push_back(c.issue_ns);
  }
  const size_t n = keys.size();
  for (size_t p = 1; 3 * p <= n; ++p) {
    // The longest periodic tail: keys[i] == keys[i + p] for every i >= from (the first
    // iteration may differ, e.g. DDP rebuilding its buckets).
    size_t from = n - p;
    while (from > 0 && keys[from - 1] == keys[from - 1 + p]) --from;
    if (n - from < 3 * p) continue;
    std::vector<int64_t> at = Boundaries(issue, from, p);
    if (at.size() < 3 || IntervalCv(at) > kMaxIntervalCv) continue;
    const int32_t main = LikelyMainThread(t);
    int64_t first = at.front();
    for (const auto& op : t.host_ops)
      if (static_cast<int32_t>(op.thread) == main) first = std::min(first, op.start_ns);
    if (first < at.front()) {
      Step lead{0, first, at.front(), 0, 0};
      lead.cut = true;  // starts mid-iteration or before the loop
      t.steps.push_back(lead);
    }
    for (size_t i = 1; i < at.size(); ++i)
      t.steps.push_back(Step{static_cast<int64_t>(i), at[i - 1], at[i], 0, 0});
    t.main_thread = main;
    t.step_source = StepSource::kCollectives;
    t.step_name = std::to_string(p) + " collectives per step";
    return true;
  }
  return false;
}

}  // namespace commdx::ingest::trace_build
