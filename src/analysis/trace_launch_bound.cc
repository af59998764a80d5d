// trace.launch_bound: the GPU sits idle waiting for the CPU to launch work — the `launch` part
// of the one idle attribution (idle_attribution.h): not data loading, not idle created by a
// host sync or spent in allocator calls, not host time outside any profiled op (host_gap), not
// CUDA-graph capture, and not gaps whose next GPU op had already been launched (queued behind
// another stream or event; CUDA graphs). In a PyTorch profiler trace the profiler's own CPU
// cost (profiler_cost.h) is taken off first: that part of the wait goes away unprofiled. Fires
// at >= 20% of the step and >= 0.5 ms per step, after that discount.
#include <algorithm>
#include <cstdio>

#include "analysis/catalogue.h"
#include "analysis/profiler_cost.h"
#include "analysis/trace_findings.h"
#include "base/str_format.h"
#include "base/text.h"

namespace commdx::analysis {

namespace {

constexpr double kMinStepShare = 0.20;
constexpr int64_t kMinCostNs = 500'000;

// Other ranks exist (in the set, or by the world size the trace records).
bool MultiRank(const TraceSet& set) {
  if (set.ranks.size() > 1) return true;
  return std::any_of(set.ranks.begin(), set.ranks.end(),
                     [](const RankTrace& t) { return t.world_size > 1; });
}

// The top-level CPU op of the launching thread most of the launch idle fell in, and the share
// that fell between ops (idle_attribution.h).
std::string WhereTheCpuWas(const RankTrace& t, const IdleParts& idle) {
  int64_t total = 0, between = 0;
  std::pair<uint32_t, int64_t> top{0, 0};
  for (const auto& [name, ns] : idle.launch_ops) {
    total += ns;
    if (name == 0)
      between = ns;
    else if (ns > top.second)
      top = {name, ns};
  }
  if (total <= 0) return "";
  std::string s = StrFormat(" %.0f%% of it falls between CPU ops (Python, framework overhead)",
                            100.0 * static_cast<double>(between) / static_cast<double>(total));
  if (top.second > 0)
    s += StrFormat("; the op holding the most is '%s' (%.0f%%)", t.names[top.first].c_str(),
                   100.0 * static_cast<double>(top.second) / static_cast<double>(total));
  return s + ".";
}

// Idle the other parts of the attribution explain, left out of this finding's saving.
std::string NotCounted(const StepBreakdown& m) {
  std::string s;
  auto add = [&s](int64_t ns, const char* what) {
    if (ns > 0)
      s += (s.empty() ? "" : ", ") + FormatDurationNs(static_cast<double>(ns)) + " " + what;
  };
  add(m.idle_alloc_ns, "in allocator calls (trace.allocator_churn)");
  add(m.idle_host_gap_ns, "in host time outside any profiled op (trace.host_gap)");
  add(m.idle_capture_ns, "in CUDA-graph capture (kernels recorded, not run)");
  return s.empty() ? "" : " Also not counted, per step: " + s + ".";
}

}  // namespace

std::vector<Finding> FindLaunchBound(const TraceSet& set, const TraceFacts& f, const Options&) {
  int worst = -1;
  double worst_ns = 0, worst_share = 0;
  ProfilerCost worst_cost;
  for (size_t i = 0; i < set.ranks.size(); ++i) {
    const StepBreakdown& m = f.rank_means[i];
    const RankTrace& t = set.ranks[i];
    if (m.step == 0 || t.steps.empty()) continue;
    const ProfilerCost& cost = f.measure(i).profiler_cost;
    const double idle = static_cast<double>(
        std::max<int64_t>(0, m.idle_launch_ns() - (cost.estimated ? cost.per_step_ns : 0)));
    double share = idle / static_cast<double>(std::max<int64_t>(1, m.total_ns()));
    if (idle > worst_ns)
      worst_ns = idle, worst_share = share, worst = static_cast<int>(i), worst_cost = cost;
  }
  if (worst < 0 || worst_share < kMinStepShare || worst_ns < kMinCostNs) return {};
  const RankTrace& t = set.ranks[worst];
  const StepBreakdown& m = f.rank_means[worst];
  const RankMeasures& rm = f.measure(worst);
  const double per_step_launches = static_cast<double>(rm.launches) / t.steps.size();
  const double median_kernel = static_cast<double>(rm.median_kernel_ns);
  Finding x = NewFinding("trace.launch_bound");
  x.rank = t.rank;
  x.title = "Rank " + std::to_string(t.rank) + " is launch-bound: its GPU waits for the CPU " +
            std::to_string(static_cast<int>(worst_share * 100)) + "% of the step";
  const double measured = static_cast<double>(m.idle_launch_ns());
  x.detail = StrFormat(
      "The GPU of rank %d has nothing to run for %.2f ms of a %.2f ms step while its CPU "
      "issues work (%.0f launches per step, median kernel %.1f µs).%s",
      t.rank, measured / 1e6, static_cast<double>(m.total_ns()) / 1e6, per_step_launches,
      median_kernel / 1e3, MultiRank(set) ? " Other ranks then wait for it at collectives." : "");
  if (worst_cost.estimated)
    x.detail += StrFormat(
        " About %.2f ms of that is the profiler's own cost (%.0f ops and %.0f runtime calls "
        "recorded per step, at %.1f and %.1f µs each as measured on one machine: a lower "
        "bound), so the step unprofiled waits about %.2f ms; compare with the unprofiled step "
        "time before acting.",
        static_cast<double>(m.idle_launch_ns() - static_cast<int64_t>(worst_ns)) / 1e6,
        worst_cost.ops_per_step, worst_cost.calls_per_step, kProfilerOpCostNs / 1e3,
        kProfilerCallCostNs / 1e3, worst_ns / 1e6);
  else
    x.detail += " Under a profiler every CPU op is slower, so compare with the unprofiled step "
                "time before acting.";
  x.detail += WhereTheCpuWas(t, f.timeline(worst).idle);
  if (m.idle_queued_ns > 0)
    x.detail += " Not counted: " + FormatDurationNs(static_cast<double>(m.idle_queued_ns)) +
                " per step of idle whose next GPU work was already launched (waiting on "
                "another stream or event, not on the CPU).";
  x.detail += NotCounted(m);
  x.metrics = {{"gpu_idle_for_cpu_per_step", measured, Unit::kNs},
               {"step_time", static_cast<double>(m.total_ns()), Unit::kNs},
               {"launches_per_step", per_step_launches, Unit::kCount},
               {"median_kernel", median_kernel, Unit::kNs}};
  if (worst_cost.estimated)
    x.metrics.push_back({"profiler_cost_per_step", measured - worst_ns, Unit::kNs});
  x.refs.push_back({SourceLoc{t.file}, "rank " + std::to_string(t.rank) + " mean over " +
                                           std::to_string(m.step) + " steps"});
  x.fix =
      "Give the GPU more work per launch (larger batch, fused kernels), cut Python overhead "
      "(torch.compile, CUDA graphs), and make sure the rank's CPU cores are not shared "
      "(CPU affinity, OMP_NUM_THREADS).";
  x.saving_ns_per_step = worst_ns;
  x.confidence = 0.7;
  return {x};
}

}  // namespace commdx::analysis
