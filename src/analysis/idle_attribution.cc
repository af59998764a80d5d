#include "analysis/idle_attribution.h"

#include <algorithm>

#include "analysis/idle_host_activity.h"

namespace commdx::analysis {

namespace {

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

// Moves the parts of `rest` that lie in `by` to `to`; `rest` keeps the others.
void Take(Intervals& rest, const Intervals& by, Intervals& to) {
  if (by.empty() || rest.empty()) return;
  // Most gaps meet none of `by`: one binary search says so without building anything.
  auto first = std::upper_bound(by.begin(), by.end(), rest.front().start,
                                [](int64_t ts, const Interval& x) { return ts < x.end; });
  if (first == by.end() || first->start >= rest.back().end) return;
  Intervals left;
  for (const Interval& r : rest) {
    const Intervals in = PartsIn(by, r.start, r.end);
    if (in.empty()) {
      left.push_back(r);
      continue;
    }
    to.insert(to.end(), in.begin(), in.end());
    for (const Interval& g : GapsIn(in, r.start, r.end)) left.push_back(g);
  }
  rest = std::move(left);
}

// Charges up to `budget_ns` of `rest` to the sync, in time order from its start; `rest` keeps
// what is left. Returns what the sync got.
int64_t ChargeSync(Intervals& rest, int64_t budget_ns, Intervals& to) {
  if (budget_ns <= 0) return 0;
  int64_t charged = 0;
  Intervals left;
  for (const Interval& r : rest) {
    const int64_t take = std::clamp<int64_t>(budget_ns - charged, 0, r.end - r.start);
    if (take > 0) to.push_back({r.start, r.start + take});
    if (r.start + take < r.end) left.push_back({r.start + take, r.end});
    charged += take;
  }
  rest = std::move(left);
  return charged;
}

// Charges `rest` to the host-gap stretches it lies in (per stretch) and moves those parts.
void ChargeHostGaps(Intervals& rest, HostActivity& host, IdleParts& p) {
  if (host.stretch_spans.empty() || rest.empty()) return;
  Intervals in;
  Take(rest, host.stretch_spans, in);
  for (const Interval& x : in) {
    auto it = std::upper_bound(host.stretches.begin(), host.stretches.end(), x.start,
                               [](int64_t ts, const HostGapCharge& s) { return ts < s.start_ns; });
    if (it != host.stretches.begin()) (--it)->idle_ns += x.end - x.start;
  }
  p.host_gap.insert(p.host_gap.end(), in.begin(), in.end());
}

// Charges the launch idle `rest` to the top-level ops of the thread the GPU waited on that it
// overlaps (by name), the remainder to name 0 (between ops). Gaps come in time order, so a
// cursor per thread walks its ops once (a binary search per gap missed the cache).
class LaunchOps {
 public:
  LaunchOps(const RankTrace& t, const std::vector<std::vector<TopOp>>& ops)
      : ops_(ops), at_(ops.size(), 0), by_name_(t.names.size() + 1, 0) {}
  void Charge(const Intervals& rest, size_t thread, bool known) {
    for (const Interval& r : rest) {
      int64_t inside = 0;
      if (known) {
        const std::vector<TopOp>& ops = ops_[thread];
        size_t& i = at_[thread];
        while (i < ops.size() && ops[i].end_ns <= r.start) ++i;
        for (size_t k = i; k < ops.size() && ops[k].start_ns < r.end; ++k) {
          const int64_t o = std::min(r.end, ops[k].end_ns) - std::max(r.start, ops[k].start_ns);
          if (o > 0) by_name_[ops[k].name] += o, inside += o;
        }
      }
      by_name_[0] += (r.end - r.start) - inside;
    }
  }
  std::vector<std::pair<uint32_t, int64_t>> ByName() const {
    std::vector<std::pair<uint32_t, int64_t>> out;
    for (size_t n = 0; n < by_name_.size(); ++n)
      if (by_name_[n] > 0) out.emplace_back(static_cast<uint32_t>(n), by_name_[n]);
    return out;
  }

 private:
  const std::vector<std::vector<TopOp>>& ops_;
  std::vector<size_t> at_;
  std::vector<int64_t> by_name_;
};

}  // namespace

IdleParts AttributeIdle(const RankTrace& t, const Intervals& busy) {
  IdleParts p;
  if (busy.empty()) return p;
  const int64_t lo = std::min(t.first_ns, busy.front().start);
  const int64_t hi = std::max(t.last_ns, busy.back().end);
  const Intervals gaps = GapsIn(busy, lo, hi);
  HostActivity host = CollectHostActivity(t);
  const std::vector<Drain> drains = SyncsDrainingInto(t, gaps);
  LaunchOps launch_ops(t, host.top_ops);
  static const Intervals kNone;
  NextLaunch next_launch(t);
  Intervals rest;
  for (size_t g = 0; g < gaps.size(); ++g) {
    const Interval gap = gaps[g];
    const RuntimeCall* launch = next_launch.At(gap.end);
    if (launch && launch->end_ns <= gap.start) {
      p.queued.push_back(gap);
      continue;
    }
    const int64_t th = launch ? static_cast<int64_t>(launch->thread) : t.main_thread;
    const bool known = th >= 0 && static_cast<size_t>(th) < t.threads.size();
    const size_t thread = known ? static_cast<size_t>(th) : 0;
    rest.assign(1, gap);
    Take(rest, host.capture, p.capture);
    Take(rest, known ? host.data[thread] : kNone, p.data);
    Take(rest, known ? host.alloc[thread] : kNone, p.alloc);
    const int64_t charged = ChargeSync(rest, drains[g].budget_ns, p.sync);
    if (charged > 0) p.sync_charges.emplace_back(drains[g].call, charged);
    ChargeHostGaps(rest, host, p);
    launch_ops.Charge(rest, thread, known);
    p.launch.insert(p.launch.end(), rest.begin(), rest.end());
  }
  std::sort(p.sync_charges.begin(), p.sync_charges.end());
  p.launch_ops = launch_ops.ByName();
  for (const HostGapCharge& s : host.stretches)
    if (s.idle_ns > 0) p.host_gaps.push_back(s);
  return p;
}

}  // namespace commdx::analysis
