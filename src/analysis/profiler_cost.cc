#include "analysis/profiler_cost.h"

#include <algorithm>
#include <string_view>

namespace commdx::analysis {

namespace {

// How many of `v` (sorted by start_ns) start in [from, to).
template <typename T>
int64_t CountStarting(const std::vector<T>& v, int64_t from, int64_t to) {
  auto by_start = [](const T& e, int64_t ts) { return e.start_ns < ts; };
  auto a = std::lower_bound(v.begin(), v.end(), from, by_start);
  auto b = std::lower_bound(a, v.end(), to, by_start);
  return b - a;
}

bool RecordedByNsys(const RankTrace& t) {
  return std::string_view(t.schema_version).rfind("nsys export", 0) == 0;
}

}  // namespace

ProfilerCost EstimateProfilerCost(const RankTrace& t) {
  ProfilerCost c;
  if (RecordedByNsys(t) || t.steps.empty()) return c;
  const bool any_whole = std::any_of(t.steps.begin(), t.steps.end(),
                                     [](const Step& s) { return !s.cut; });
  int64_t ops = 0, calls = 0, steps = 0;
  for (const Step& s : t.steps) {
    if (any_whole && s.cut) continue;
    ++steps;
    // Every op recorded in the step's CPU span, on any thread (backward runs on its own).
    t.ForEachHostOpFrom(s.cpu_start_ns, [&](const HostOp& h) {
      if (h.start_ns >= s.cpu_end_ns) return false;
      ops += h.kind == HostOpKind::kCpuOp;
      return true;
    });
    calls += CountStarting(t.runtime, s.cpu_start_ns, s.cpu_end_ns);
  }
  if (steps == 0) return c;
  c.estimated = true;
  c.ops_per_step = static_cast<double>(ops) / static_cast<double>(steps);
  c.calls_per_step = static_cast<double>(calls) / static_cast<double>(steps);
  c.per_step_ns = (ops * kProfilerOpCostNs + calls * kProfilerCallCostNs) / steps;
  return c;
}

}  // namespace commdx::analysis
