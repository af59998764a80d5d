#include "analysis/trace_host_sync.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace commdx::analysis {

namespace {

constexpr size_t kMaxWalkBack = 20000;  // host ops looked at to find enclosing ones
constexpr double kMinStepShare = 0.02;  // a finding needs 2% of the step...
constexpr int64_t kMinCostNs = 100'000;  // ...and 0.1 ms per step
constexpr double kCpuBoundIdle = 0.3;
constexpr double kRepeatedPerStep = 2;    // idle-host share above which the CPU is the bottleneck

int64_t StepOfTime(const RankTrace& t, int64_t ts) {
  for (const Step& s : t.steps)
    if (ts >= s.cpu_start_ns && ts < s.cpu_end_ns) return s.number;
  return -1;
}

// A device-to-host copy launched on `thread` in [from, to].
bool HasDeviceToHostCopy(const RankTrace& t, uint32_t thread, int64_t from, int64_t to) {
  auto it = std::lower_bound(t.runtime.begin(), t.runtime.end(), from,
                             [](const RuntimeCall& r, int64_t ts) { return r.start_ns < ts; });
  for (; it != t.runtime.end() && it->start_ns <= to; ++it)
    if (it->thread == thread && it->gpu_op >= 0 && t.gpu_ops[it->gpu_op].copy == CopyKind::kDtoH)
      return true;
  return false;
}

// The GPU drains during a blocking call and stays idle until the CPU launches new work.
int64_t GpuIdleAfter(const RankTrace& t, const RankTimeline& tl, const RuntimeCall& rc) {
  auto next = std::lower_bound(t.gpu_ops.begin(), t.gpu_ops.end(), rc.end_ns,
                               [](const GpuOp& op, int64_t ts) { return op.start_ns < ts; });
  int64_t resume = next == t.gpu_ops.end() ? rc.end_ns : next->start_ns;
  if (resume <= rc.start_ns) return 0;
  return (resume - rc.start_ns) - LengthIn(tl.busy, rc.start_ns, resume);
}

}  // namespace

int64_t SyncIdleInSteps(const RankTrace& t, const RankTimeline& tl) {
  int64_t idle = 0;
  for (const RuntimeCall& rc : t.runtime)
    if ((rc.flags & kHostFlagSync) && StepOfTime(t, rc.start_ns) >= 0)
      idle += GpuIdleAfter(t, tl, rc);
  return idle;
}

std::pair<int32_t, int32_t> EnclosingOps(const RankTrace& t, uint32_t thread, int64_t start,
                                         int64_t end) {
  auto it = std::upper_bound(t.host_ops.begin(), t.host_ops.end(), start,
                             [](int64_t ts, const HostOp& op) { return ts < op.start_ns; });
  int32_t inner = -1, outer = -1;
  for (size_t walked = 0; it != t.host_ops.begin() && walked < kMaxWalkBack; ++walked) {
    --it;
    if (it->thread != thread || it->end_ns < end) continue;
    int32_t idx = static_cast<int32_t>(it - t.host_ops.begin());
    if (inner < 0) inner = idx;
    if (!(it->flags & kHostFlagStep)) outer = idx;
  }
  return {inner, outer};
}

std::vector<HostSync> FindHostSyncs(const RankTrace& t, int trace, const RankTimeline& tl) {
  std::vector<HostSync> out;
  for (size_t i = 0; i < t.runtime.size(); ++i) {
    const RuntimeCall& rc = t.runtime[i];
    if (!(rc.flags & kHostFlagSync)) continue;
    HostSync s;
    s.trace = trace;
    s.call = static_cast<int32_t>(i);
    s.step = StepOfTime(t, rc.start_ns);
    s.blocked_ns = rc.end_ns - rc.start_ns;
    s.gpu_idle_ns = GpuIdleAfter(t, tl, rc);
    auto [inner, outer] = EnclosingOps(t, rc.thread, rc.start_ns, rc.end_ns);
    s.cause = inner >= 0 ? t.names[t.host_ops[inner].name] : t.names[rc.name];
    if (outer >= 0 && outer != inner) s.context = t.names[t.host_ops[outer].name];
    if (inner >= 0 && HasDeviceToHostCopy(t, rc.thread, t.host_ops[inner].start_ns, rc.start_ns))
      s.cause += " (D2H copy + sync)";
    else if (inner < 0 || !(t.host_ops[inner].flags & kHostFlagItem))
      s.cause += " (" + t.names[rc.name] + ")";
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<Finding> FindHostSync(const TraceSet& set, const TraceFacts& f, const Options&) {
  std::vector<Finding> out;
  for (size_t ti = 0; ti < set.ranks.size(); ++ti) {
    const RankTrace& t = set.ranks[ti];
    if (t.steps.empty() || !t.has_gpu) continue;
    auto syncs = FindHostSyncs(t, static_cast<int>(ti), f.timelines[ti]);
    int64_t in_steps = 0, idle = 0, blocked = 0;
    std::map<std::string, std::pair<int, int64_t>> by_cause;  // count, idle
    for (const HostSync& s : syncs) {
      if (s.step < 0) continue;  // outside the steps (profiler start/stop, setup)
      ++in_steps;
      idle += s.gpu_idle_ns;
      blocked += s.blocked_ns;
      std::string key = s.cause + (s.context.empty() ? "" : " in " + s.context);
      auto& c = by_cause[key];
      ++c.first;
      c.second += s.gpu_idle_ns;
    }
    const double nsteps = static_cast<double>(t.steps.size());
    const double per_step_idle = static_cast<double>(idle) / nsteps;
    const double per_step_blocked = static_cast<double>(blocked) / nsteps;
    const double step_ns = static_cast<double>(f.rank_means[ti].total_ns());
    const double per_step_count = static_cast<double>(in_steps) / nsteps;
    // GPU-bound: what is lost is the GPU idle after each sync. CPU-bound: the CPU time spent
    // blocked instead of launching adds to the step as well.
    const bool cpu_bound =
        step_ns > 0 && static_cast<double>(f.rank_means[ti].idle_host_ns) >= kCpuBoundIdle * step_ns;
    const double cost = per_step_idle + (cpu_bound ? per_step_blocked : 0);
    // Two or more blocking calls in every step are almost never intended (one per step can be,
    // e.g. GradScaler's inf check): they are reported even where the profile shows them cheap.
    const bool costly = cost >= kMinCostNs && (step_ns <= 0 || cost >= kMinStepShare * step_ns);
    if (per_step_count < 1 || (!costly && per_step_count < kRepeatedPerStep)) continue;
    std::vector<std::pair<std::string, std::pair<int, int64_t>>> causes(by_cause.begin(), by_cause.end());
    std::sort(causes.begin(), causes.end(),
              [](const auto& a, const auto& b) { return a.second.second > b.second.second; });
    Finding x;
    x.id = "trace.host_sync";
    x.rank = t.rank;
    x.title = "Rank " + std::to_string(t.rank) + ": host synchronisation stalls the GPU (" +
              causes.front().first + ")";
    char buf[500];
    std::snprintf(buf, sizeof buf,
                  "%.1f blocking calls per step; the CPU is blocked %.2f ms per step and after each "
                  "call the GPU sits idle until the CPU launches again (%.2f ms per step). Costs "
                  "%.2f ms per step (%.1f%% of a %.2f ms step)%s. Main cause: %s (%d calls).",
                  per_step_count, per_step_blocked / 1e6, per_step_idle / 1e6, cost / 1e6,
                  step_ns > 0 ? 100.0 * cost / step_ns : 0, step_ns / 1e6,
                  cpu_bound ? ", counting the blocked CPU time because this rank is CPU-bound" : "",
                  causes.front().first.c_str(), causes.front().second.first);
    x.detail = buf;
    x.metrics = {{"syncs_per_step", per_step_count, "count"},
                 {"gpu_idle_per_step", per_step_idle, "ns"},
                 {"cpu_blocked_per_step", static_cast<double>(blocked) / nsteps, "ns"}};
    for (size_t i = 0; i < causes.size() && i < 5; ++i)
      x.refs.push_back({SourceLoc{t.file}, causes[i].first + ": " + std::to_string(causes[i].second.first) +
                                               " calls, GPU idle " +
                                               std::to_string(causes[i].second.second / 1000) + " µs"});
    x.fix = "Remove the synchronisation from the step: no .item(), print(tensor) or Python "
            "conditions on GPU values inside the loop (log every N steps, or accumulate on the GPU "
            "and read once), no torch.cuda.synchronize() except for timing; use non_blocking copies.";
    x.cost_ns_per_step = cost;
    x.confidence = 0.9;
    out.push_back(std::move(x));
  }
  return out;
}

}  // namespace commdx::analysis
