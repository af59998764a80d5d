#include "analysis/idle_attribution.h"

#include <algorithm>

namespace commdx::analysis {

namespace {

// Data-loading regions per host thread (index = RankTrace::threads index).
std::vector<Intervals> DataRegionsByThread(const RankTrace& t) {
  std::vector<std::vector<Interval>> raw(t.threads.size());
  for (const HostOp& op : t.host_ops)
    if ((op.flags & kHostFlagDataLoader) && op.thread < raw.size())
      raw[op.thread].push_back({op.start_ns, op.end_ns});
  std::vector<Intervals> out;
  out.reserve(raw.size());
  for (auto& r : raw) out.push_back(MergeIntervals(std::move(r)));
  return out;
}

struct Drain {
  int32_t call = -1;      // index into RankTrace::runtime
  int64_t budget_ns = 0;  // how long it blocked the CPU
};

// For each gap, the longest blocking call during which the GPU drained into that gap.
std::vector<Drain> SyncsDrainingInto(const RankTrace& t, const Intervals& gaps) {
  std::vector<Drain> by_gap(gaps.size());
  for (size_t i = 0; i < t.runtime.size(); ++i) {
    const RuntimeCall& rc = t.runtime[i];
    if (!(rc.flags & kHostFlagSync)) continue;
    auto g = std::lower_bound(gaps.begin(), gaps.end(), rc.end_ns,
                              [](const Interval& x, int64_t ts) { return x.end <= ts; });
    if (g == gaps.end() || g->start > rc.end_ns || g->start < rc.start_ns) continue;
    Drain& d = by_gap[static_cast<size_t>(g - gaps.begin())];
    if (rc.end_ns - rc.start_ns > d.budget_ns)
      d = Drain{static_cast<int32_t>(i), rc.end_ns - rc.start_ns};
  }
  return by_gap;
}

// The launch of the first GPU op (not a GPU-side sync) starting at or after `ts`; null when it
// is not in the trace or there is no such op. Asked for times in increasing order (the ends of
// the gaps), so one cursor walks the ops once: a binary search per gap missed the cache on
// every probe (GPU ops are 64 bytes; ~4% of a 500 MB trace's ingest and analysis).
class NextLaunch {
 public:
  explicit NextLaunch(const RankTrace& t) : t_(t), at_(t.gpu_ops.begin()) {}
  const RuntimeCall* At(int64_t ts) {
    while (at_ != t_.gpu_ops.end() && at_->start_ns < ts) ++at_;
    for (auto it = at_; it != t_.gpu_ops.end(); ++it) {
      if (it->kind == GpuOpKind::kSync) continue;
      return it->launch >= 0 ? &t_.runtime[static_cast<size_t>(it->launch)] : nullptr;
    }
    return nullptr;
  }

 private:
  const RankTrace& t_;
  std::vector<GpuOp>::const_iterator at_;
};

// Charges `rest` (the part of a gap that is not data loading) in time order: up to `budget_ns`
// to the sync, the remainder to launch. Returns what the sync got.
int64_t ChargeRest(const Intervals& rest, int64_t budget_ns, IdleParts& p) {
  int64_t charged = 0;
  for (const Interval& r : rest) {
    const int64_t take = std::clamp<int64_t>(budget_ns - charged, 0, r.end - r.start);
    if (take > 0) p.sync.push_back({r.start, r.start + take});
    if (r.start + take < r.end) p.launch.push_back({r.start + take, r.end});
    charged += take;
  }
  return charged;
}

}  // namespace

IdleParts AttributeIdle(const RankTrace& t, const Intervals& busy) {
  IdleParts p;
  if (busy.empty()) return p;
  const int64_t lo = std::min(t.first_ns, busy.front().start);
  const int64_t hi = std::max(t.last_ns, busy.back().end);
  const Intervals gaps = GapsIn(busy, lo, hi);
  const std::vector<Intervals> regions = DataRegionsByThread(t);
  const std::vector<Drain> drains = SyncsDrainingInto(t, gaps);
  NextLaunch next_launch(t);
  for (size_t g = 0; g < gaps.size(); ++g) {
    const Interval gap = gaps[g];
    const RuntimeCall* launch = next_launch.At(gap.end);
    if (launch && launch->end_ns <= gap.start) {
      p.queued.push_back(gap);
      continue;
    }
    const int64_t thread = launch ? static_cast<int64_t>(launch->thread) : t.main_thread;
    Intervals data;
    if (thread >= 0 && static_cast<size_t>(thread) < regions.size())
      data = PartsIn(regions[static_cast<size_t>(thread)], gap.start, gap.end);
    p.data.insert(p.data.end(), data.begin(), data.end());
    const int64_t charged = ChargeRest(GapsIn(data, gap.start, gap.end), drains[g].budget_ns, p);
    if (charged > 0) p.sync_charges.emplace_back(drains[g].call, charged);
  }
  std::sort(p.sync_charges.begin(), p.sync_charges.end());
  return p;
}

}  // namespace commdx::analysis
