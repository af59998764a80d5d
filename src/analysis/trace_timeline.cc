#include "analysis/trace_timeline.h"

#include <algorithm>
#include <iterator>

#include "analysis/idle_attribution.h"

namespace commdx::analysis {

namespace {

bool ByStart(const Interval& a, const Interval& b) { return a.start < b.start; }

// `v` sorted by start: overlapping and touching intervals joined, empty ones dropped, in place.
Intervals Coalesce(std::vector<Interval> v) {
  size_t out = 0;
  for (const Interval& x : v) {
    if (x.end <= x.start) continue;
    if (out > 0 && x.start <= v[out - 1].end)
      v[out - 1].end = std::max(v[out - 1].end, x.end);
    else
      v[out++] = x;
  }
  v.resize(out);
  return v;
}

// First interval that may end after `lo`.
Intervals::const_iterator From(const Intervals& x, int64_t lo) {
  return std::lower_bound(x.begin(), x.end(), lo,
                          [](const Interval& i, int64_t t) { return i.end <= t; });
}

}  // namespace

// Intervals built from ops that are already in start order (the usual case) are not sorted again.
Intervals MergeIntervals(std::vector<Interval> v) {
  if (!std::is_sorted(v.begin(), v.end(), ByStart)) std::sort(v.begin(), v.end(), ByStart);
  return Coalesce(std::move(v));
}

int64_t LengthIn(const Intervals& x, int64_t lo, int64_t hi) {
  int64_t total = 0;
  for (auto it = From(x, lo); it != x.end() && it->start < hi; ++it)
    total += std::min(it->end, hi) - std::max(it->start, lo);
  return total;
}

int64_t OverlapIn(const Intervals& x, const Intervals& y, int64_t lo, int64_t hi) {
  int64_t total = 0;
  auto a = From(x, lo), b = From(y, lo);
  while (a != x.end() && b != y.end() && a->start < hi && b->start < hi) {
    int64_t s = std::max({a->start, b->start, lo});
    int64_t e = std::min({a->end, b->end, hi});
    if (e > s) total += e - s;
    if (a->end < b->end)
      ++a;
    else
      ++b;
  }
  return total;
}

Intervals UnionOf(const Intervals& x, const Intervals& y) {
  std::vector<Interval> all;
  all.reserve(x.size() + y.size());
  // Both are in order already: merged, not sorted.
  std::merge(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(all), ByStart);
  return Coalesce(std::move(all));
}

Intervals IntersectionOf(const Intervals& x, const Intervals& y) {
  Intervals out;
  size_t i = 0, j = 0;
  while (i < x.size() && j < y.size()) {
    int64_t s = std::max(x[i].start, y[j].start), e = std::min(x[i].end, y[j].end);
    if (e > s) out.push_back({s, e});
    if (x[i].end < y[j].end)
      ++i;
    else
      ++j;
  }
  return out;
}

Intervals PartsIn(const Intervals& x, int64_t lo, int64_t hi) {
  Intervals out;
  for (auto it = From(x, lo); it != x.end() && it->start < hi; ++it) {
    const int64_t s = std::max(it->start, lo), e = std::min(it->end, hi);
    if (e > s) out.push_back({s, e});
  }
  return out;
}

Intervals GapsIn(const Intervals& x, int64_t lo, int64_t hi) {
  Intervals out;
  int64_t at = lo;
  for (auto it = From(x, lo); it != x.end() && it->start < hi; ++it) {
    if (it->start > at) out.push_back({at, it->start});
    at = std::max(at, it->end);
  }
  if (at < hi) out.push_back({at, hi});
  return out;
}

RankTimeline BuildTimeline(const RankTrace& t) {
  std::vector<Interval> compute, comm, other, data, sync;
  compute.reserve(t.gpu_ops.size());  // no regrowth copies (pages never written stay unused)
  for (const GpuOp& op : t.gpu_ops) {
    switch (op.kind) {
      case GpuOpKind::kKernel:
        compute.push_back({op.start_ns, op.end_ns});
        break;
      case GpuOpKind::kCommKernel:
        comm.push_back({op.start_ns, op.end_ns});
        break;
      case GpuOpKind::kMemcpy:
      case GpuOpKind::kMemset:
        other.push_back({op.start_ns, op.end_ns});
        break;
      case GpuOpKind::kSync:
        break;
    }
  }
  t.ForEachHostOp([&](const HostOp& op) {
    if ((op.flags & kHostFlagDataLoader) && static_cast<int32_t>(op.thread) == t.main_thread)
      data.push_back({op.start_ns, op.end_ns});
  });
  for (const RuntimeCall& rc : t.runtime)
    if (rc.flags & kHostFlagSync) sync.push_back({rc.start_ns, rc.end_ns});
  RankTimeline tl;
  tl.compute = MergeIntervals(std::move(compute));
  tl.comm = MergeIntervals(std::move(comm));
  tl.other = MergeIntervals(std::move(other));
  tl.busy = UnionOf(UnionOf(tl.compute, tl.comm), tl.other);
  tl.data_loading = MergeIntervals(std::move(data));
  tl.host_sync = MergeIntervals(std::move(sync));
  tl.idle = AttributeIdle(t, tl.busy);
  return tl;
}

std::vector<Step> StepWindows(const RankTrace& t) {
  if (!t.steps.empty()) return t.steps;
  std::vector<Step> one;
  if (t.last_ns > t.first_ns) one.push_back(Step{0, t.first_ns, t.last_ns, t.first_ns, t.last_ns});
  return one;
}

int64_t Median(std::vector<int64_t> v) {
  if (v.empty()) return 0;
  auto mid = v.begin() + static_cast<long>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

double Mean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

}  // namespace commdx::analysis
