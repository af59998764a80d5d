#include "analysis/trace_host_sync.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <functional>
#include <iterator>
#include <map>
#include <set>
#include <optional>
#include <queue>

#include "analysis/catalogue.h"
#include "base/str_format.h"

namespace commdx::analysis {

namespace {

constexpr size_t kMaxWalkBack = 20000;   // host ops looked at to find enclosing ones
constexpr double kMinStepShare = 0.02;   // a finding needs 2% of the step...
constexpr int64_t kMinCostNs = 100'000;  // ...and 0.1 ms per step
constexpr double kRepeatedPerStep = 2;   // calls per step between its kernel launches
                                         // reported even when cheap

// The number of the first step (in the rank's order) whose CPU span holds a time, or -1, for
// times asked in order (the runtime calls are sorted by start): a sweep over the steps by start
// that keeps the ones begun in a heap by position, those ended dropped from its top. Steps may
// overlap (a grown trace's long ProfilerStep does); a walk over all of them for each sync made
// a trace of thousands of steps and syncs quadratic. A time earlier than the last one asked is
// answered by that walk.
class StepOfTime {
 public:
  explicit StepOfTime(const std::vector<Step>& steps) : steps_(steps), by_start_(steps.size()) {
    for (size_t i = 0; i < steps.size(); ++i) by_start_[i] = static_cast<uint32_t>(i);
    std::stable_sort(by_start_.begin(), by_start_.end(), [&](uint32_t a, uint32_t b) {
      return steps[a].cpu_start_ns < steps[b].cpu_start_ns;
    });
  }
  int64_t operator()(int64_t ts) {
    if (ts < last_) {
      for (const Step& s : steps_)
        if (ts >= s.cpu_start_ns && ts < s.cpu_end_ns) return s.number;
      return -1;
    }
    last_ = ts;
    for (; next_ < by_start_.size() && steps_[by_start_[next_]].cpu_start_ns <= ts; ++next_)
      begun_.push(by_start_[next_]);
    // The first begun step is the answer unless it has ended, and then it has for good.
    while (!begun_.empty() && steps_[begun_.top()].cpu_end_ns <= ts) begun_.pop();
    return begun_.empty() ? -1 : steps_[begun_.top()].number;
  }

 private:
  const std::vector<Step>& steps_;
  std::vector<uint32_t> by_start_;
  size_t next_ = 0;
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<uint32_t>> begun_;
  int64_t last_ = INT64_MIN;
};

// A device-to-host copy launched on `thread` in [from, to].
bool HasDeviceToHostCopy(const RankTrace& t, uint32_t thread, int64_t from, int64_t to) {
  auto it = std::lower_bound(t.runtime.begin(), t.runtime.end(), from,
                             [](const RuntimeCall& r, int64_t ts) { return r.start_ns < ts; });
  for (; it != t.runtime.end() && it->start_ns <= to; ++it)
    if (it->thread == thread && it->gpu_op >= 0 && t.gpu_ops[it->gpu_op].copy == CopyKind::kDtoH)
      return true;
  return false;
}

// What the one idle attribution charged to this call (idle_attribution.h); 0 if nothing.
int64_t ChargedTo(const RankTimeline& tl, int32_t call) {
  const auto& v = tl.idle.sync_charges;
  auto it = std::lower_bound(v.begin(), v.end(), std::pair<int32_t, int64_t>{call, INT64_MIN});
  return it != v.end() && it->first == call ? it->second : 0;
}

}  // namespace

HostOpEnds::HostOpEnds(const std::vector<HostOp>& ops) {
  const size_t blocks = (ops.size() + kBlock - 1) / kBlock;
  while (leaves_ < blocks) leaves_ *= 2;
  tree_.assign(2 * leaves_, INT64_MIN);
  for (size_t i = 0; i < ops.size(); ++i) {
    int64_t& m = tree_[leaves_ + i / kBlock];
    m = std::max(m, ops[i].end_ns);
  }
  for (size_t k = leaves_ - 1; k >= 1; --k) tree_[k] = std::max(tree_[2 * k], tree_[2 * k + 1]);
}

int64_t HostOpEnds::Last(size_t node, size_t node_lo, size_t node_hi, size_t lo, size_t hi,
                         int64_t end) const {
  if (node_hi <= lo || node_lo >= hi || tree_[node] < end) return -1;
  if (node_hi - node_lo == 1) return static_cast<int64_t>(node_lo);
  const size_t mid = node_lo + (node_hi - node_lo) / 2;
  const int64_t right = Last(2 * node + 1, mid, node_hi, lo, hi, end);
  return right >= 0 ? right : Last(2 * node, node_lo, mid, lo, hi, end);
}

int64_t HostOpEnds::LastBlockEndingAfter(size_t lo, size_t hi, int64_t end) const {
  return lo < hi ? Last(1, 0, leaves_, lo, hi, end) : -1;
}

// The ops enclosing [start, end] are the few that start at or before `start` and end at or
// after `end`: only blocks whose latest end is that late are looked into. The result is that of
// walking back one op at a time over the last kMaxWalkBack ops.
std::pair<int32_t, int32_t> EnclosingOps(const std::vector<HostOp>& ops, const HostOpEnds& ends,
                                         uint32_t thread, int64_t start, int64_t end) {
  constexpr size_t kBlock = HostOpEnds::kBlock;
  auto it = std::upper_bound(ops.begin(), ops.end(), start,
                             [](int64_t ts, const HostOp& op) { return ts < op.start_ns; });
  const size_t upto = static_cast<size_t>(it - ops.begin());
  const size_t from = upto - std::min(upto, kMaxWalkBack);
  int32_t inner = -1, outer = -1;
  auto look_at = [&](size_t i) {  // ops are looked at from the last one back
    const HostOp& op = ops[i];
    if (op.thread != thread || op.end_ns < end) return;
    if (inner < 0) inner = static_cast<int32_t>(i);
    if (!(op.flags & kHostFlagStep)) outer = static_cast<int32_t>(i);
  };
  // The ops of the block `upto` falls in, then whole blocks, then those of the block `from`
  // falls in.
  const size_t top = std::max(from, upto - upto % kBlock);
  for (size_t i = upto; i > top;) look_at(--i);
  if (top == from) return {inner, outer};
  const size_t first_whole = (from + kBlock - 1) / kBlock;
  for (size_t hi = top / kBlock;;) {
    const int64_t b = ends.LastBlockEndingAfter(first_whole, hi, end);
    if (b < 0) break;
    hi = static_cast<size_t>(b);
    for (size_t i = (hi + 1) * kBlock; i > hi * kBlock;) look_at(--i);
  }
  for (size_t i = first_whole * kBlock; i > from;) look_at(--i);
  return {inner, outer};
}

std::vector<HostSync> FindHostSyncs(const RankTrace& t, int trace, const RankTimeline& tl) {
  std::vector<HostSync> out;
  std::vector<HostOp> ops;         // unpacked at the first sync
  std::optional<HostOpEnds> ends;  // built then
  StepOfTime step_of(t.steps);
  for (size_t i = 0; i < t.runtime.size(); ++i) {
    const RuntimeCall& rc = t.runtime[i];
    if (!(rc.flags & kHostFlagSync)) continue;
    HostSync s;
    s.trace = trace;
    s.call = static_cast<int32_t>(i);
    s.step = step_of(rc.start_ns);
    s.blocked_ns = rc.end_ns - rc.start_ns;
    s.gpu_idle_ns = ChargedTo(tl, s.call);
    if (!ends) {
      ops = t.HostOps();
      ends.emplace(ops);
    }
    auto [inner, outer] = EnclosingOps(ops, *ends, rc.thread, rc.start_ns, rc.end_ns);
    s.cause = inner >= 0 ? t.names[ops[inner].name] : t.names[rc.name];
    if (outer >= 0 && outer != inner) s.context = t.names[ops[outer].name];
    if (inner >= 0 && HasDeviceToHostCopy(t, rc.thread, ops[inner].start_ns, rc.start_ns))
      s.cause += " (D2H copy + sync)";
    else if (inner < 0 || !(ops[inner].flags & kHostFlagItem))
      s.cause += " (" + t.names[rc.name] + ")";
    out.push_back(std::move(s));
  }
  return out;
}

namespace {

// The CPU times of the rank's first and last GPU launches ({0, -1} without any).
std::pair<int64_t, int64_t> LaunchSpan(const RankTrace& t) {
  std::pair<int64_t, int64_t> span{0, -1};
  bool any = false;
  for (const RuntimeCall& c : t.runtime) {
    if (!(c.flags & kHostFlagLaunch)) continue;
    if (!any) span.first = c.start_ns;
    span.second = std::max(span.second, c.start_ns);
    any = true;
  }
  return span;
}

// Where the whole trace is one step (no boundaries found), a sync before the first launch or
// after the last one is the edge of the capture (a synchronize() around the profiled region):
// it drains nothing the captured work needs, or holds back nothing launched after it, so it is
// no pattern of the loop, however few syncs the "step" has.
bool AtCaptureEdge(const RankTrace& t, const HostSync& s, int64_t first_launch,
                   int64_t last_launch) {
  if (s.call < 0 || static_cast<size_t>(s.call) >= t.runtime.size()) return false;
  const RuntimeCall& c = t.runtime[static_cast<size_t>(s.call)];
  return last_launch < first_launch || c.end_ns <= first_launch || c.start_ns >= last_launch;
}

// A call that launches a kernel (a copy or a set aside): the step's computation.
bool LaunchesKernel(const RankTrace& t, const RuntimeCall& c) {
  if (!(c.flags & kHostFlagLaunch)) return false;
  if (c.gpu_op >= 0 && static_cast<size_t>(c.gpu_op) < t.gpu_ops.size()) {
    const GpuOpKind k = t.gpu_ops[static_cast<size_t>(c.gpu_op)].kind;
    return k == GpuOpKind::kKernel || k == GpuOpKind::kCommKernel;
  }
  return t.names[c.name].find("Launch") != std::string::npos;  // its GPU op is not in the trace
}

// The CPU times of the first and last kernel launches in each step, sorted by step number (the
// later step where two have one number). A sorted list, not a map: a grown trace has tens of
// thousands of steps and a sync in each.
struct LaunchSpanOfStep {
  int64_t step = 0, first = 0, last = 0;
};
std::vector<LaunchSpanOfStep> KernelLaunchSpans(const RankTrace& t) {
  std::vector<LaunchSpanOfStep> out;
  auto by_start = [](const RuntimeCall& r, int64_t ts) { return r.start_ns < ts; };
  for (const Step& step : t.steps) {
    auto lo = std::lower_bound(t.runtime.begin(), t.runtime.end(), step.cpu_start_ns, by_start);
    auto hi = std::lower_bound(lo, t.runtime.end(), step.cpu_end_ns, by_start);
    auto first = std::find_if(lo, hi, [&](const RuntimeCall& r) { return LaunchesKernel(t, r); });
    if (first == hi) continue;
    auto last = std::find_if(std::make_reverse_iterator(hi), std::make_reverse_iterator(first),
                             [&](const RuntimeCall& r) { return LaunchesKernel(t, r); });
    out.push_back({step.number, first->start_ns, last->start_ns});
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.step < b.step;
  });
  // Of steps with one number the one written last is kept, as a map assigned in order would.
  size_t kept = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    if (i + 1 < out.size() && out[i + 1].step == out[i].step) continue;
    out[kept++] = out[i];
  }
  out.resize(kept);
  return out;
}

// A sync before the step's first kernel launch or after its last one (the batch's pageable
// `.to(device)` copies, a loss.item() at the end) sits at the step's edge: it drains the queue
// once per step, where the loop turns over, however many calls it takes. Only a sync between
// the step's kernel launches cuts the CPU's lead over the GPU in the middle of the work.
bool AtStepEdge(const RankTrace& t, const HostSync& s, const std::vector<LaunchSpanOfStep>& spans) {
  auto span = std::lower_bound(spans.begin(), spans.end(), s.step,
                               [](const LaunchSpanOfStep& x, int64_t n) { return x.step < n; });
  if (span == spans.end() || span->step != s.step || s.call < 0 ||
      static_cast<size_t>(s.call) >= t.runtime.size())
    return true;
  const RuntimeCall& c = t.runtime[static_cast<size_t>(s.call)];
  return c.start_ns <= span->first || c.start_ns >= span->last;
}

}  // namespace

HostSyncCounts MeasureHostSyncs(const RankTrace& t, int trace, const RankTimeline& tl,
                                const std::vector<const StepBreakdown*>& mean) {
  HostSyncCounts c;
  if (t.steps.empty() || !t.has_gpu) return c;
  c.measured = true;
  const auto syncs = FindHostSyncs(t, trace, tl);
  const auto [first_launch, last_launch] = LaunchSpan(t);
  const auto spans = KernelLaunchSpans(t);
  // The steps the rank's mean is over (StepsOfMean: a step the trace cut is left out when
  // whole ones exist): counts, blocked time and each cause's idle are over the same steps as
  // the cost. None for a rank without GPU work: then all of its steps.
  std::set<int64_t> in_mean;
  for (const StepBreakdown* b : mean) in_mean.insert(b->step);
  for (const HostSync& s : syncs) {
    if (s.step < 0) continue;  // outside the steps (profiler start/stop, setup)
    if (!in_mean.empty() && !in_mean.count(s.step)) continue;
    if (t.step_source == StepSource::kWholeTrace && AtCaptureEdge(t, s, first_launch, last_launch))
      continue;
    ++c.in_steps;
    c.in_work += !AtStepEdge(t, s, spans);
    c.blocked_ns += s.blocked_ns;
    std::string key = s.cause + (s.context.empty() ? "" : " in " + s.context);
    auto& k = c.by_cause[key];
    ++k.first;
    k.second += s.gpu_idle_ns;
  }
  c.steps = in_mean.empty() ? t.steps.size() : in_mean.size();
  return c;
}

std::vector<Finding> FindHostSync(const TraceSet& set, const TraceFacts& f, const Options&) {
  std::vector<Finding> out;
  for (size_t ti = 0; ti < set.ranks.size(); ++ti) {
    const RankTrace& t = set.ranks[ti];
    const HostSyncCounts& m = f.measure(ti).host_syncs;
    if (!m.measured) continue;
    const int64_t in_steps = m.in_steps, in_work = m.in_work, blocked = m.blocked_ns;
    const auto& by_cause = m.by_cause;
    const double nsteps = static_cast<double>(m.steps);
    const double per_step_blocked = static_cast<double>(blocked) / nsteps;
    const double step_ns = static_cast<double>(f.rank_means[ti].total_ns());
    const double per_step_count = static_cast<double>(in_steps) / nsteps;
    const double per_step_in_work = static_cast<double>(in_work) / nsteps;
    // The idle the syncs create, from the one attribution (each gap charged once, at most the
    // time the sync blocked, data loading and already-drained GPUs excluded), over the steps the
    // rank's mean uses.
    const double cost = static_cast<double>(f.rank_means[ti].idle_sync_ns);
    // Two or more blocking calls in every step between its kernel launches are almost never
    // intended (one per step can be, e.g. GradScaler's inf check; calls at the step's edge drain
    // the queue once, AtStepEdge): they are reported even where the profile shows them cheap
    // (under the profiler the CPU is often behind the GPU, so a sync finds little to wait for).
    const bool costly = cost >= kMinCostNs && (step_ns <= 0 || cost >= kMinStepShare * step_ns);
    if (per_step_count < 1 || (!costly && per_step_in_work < kRepeatedPerStep)) continue;
    std::vector<std::pair<std::string, std::pair<int, int64_t>>> causes(by_cause.begin(),
                                                                        by_cause.end());
    std::sort(causes.begin(), causes.end(),
              [](const auto& a, const auto& b) { return a.second.second > b.second.second; });
    Finding x = NewFinding("trace.host_sync");
    x.rank = t.rank;
    x.title = "Rank " + std::to_string(t.rank) + ": host synchronisation stalls the GPU (" +
              causes.front().first + ")";
    std::string buf = StrFormat(
        "%.1f blocking calls per step; the CPU is blocked %.2f ms per step. The GPU idle "
        "they create (after the GPU drained during a call, at most the time it blocked, "
        "data loading excluded) is %.2f ms per step (%.1f%% of a %.2f ms step). Main "
        "cause: %s (%d calls).",
        per_step_count, per_step_blocked / 1e6, cost / 1e6,
        step_ns > 0 ? 100.0 * cost / step_ns : 0, step_ns / 1e6, causes.front().first.c_str(),
        causes.front().second.first);
    x.detail = buf;
    if (!costly)
      x.detail +=
          " Cheap in this profile, but each call empties the GPU's queue: where the CPU "
          "runs ahead of the GPU (often without the profiler) the GPU then waits for every "
          "launch after it.";
    x.metrics = {{"syncs_per_step", per_step_count, Unit::kCount},
                 {"gpu_idle_per_step", cost, Unit::kNs},
                 {"cpu_blocked_per_step", static_cast<double>(blocked) / nsteps, Unit::kNs}};
    for (size_t i = 0; i < causes.size() && i < 5; ++i)
      x.refs.push_back(
          {SourceLoc{t.file}, causes[i].first + ": " + std::to_string(causes[i].second.first) +
                                  " calls, GPU idle " +
                                  FormatFixed(causes[i].second.second / 1e6 / nsteps, 2) +
                                  " ms per step"});
    x.fix =
        "Remove the synchronisation from the step: no .item(), print(tensor) or Python "
        "conditions on GPU values inside the loop (log every N steps, or accumulate on the GPU "
        "and read once), no torch.cuda.synchronize() except for timing; use non_blocking copies.";
    x.saving_ns_per_step = cost;
    x.confidence = 0.9;
    out.push_back(std::move(x));
  }
  return out;
}

}  // namespace commdx::analysis
