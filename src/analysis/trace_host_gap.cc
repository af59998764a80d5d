// trace.host_gap: the GPU idles while the host runs code that no profiled op covers — on every
// thread that launches GPU work and on the main thread, no CPU op, annotation or runtime call
// for >= 1 ms (kMinHostGapNs): logging, metrics, checkpointing, Python between steps. The
// `host_gap` part of the one idle attribution (idle_attribution.h), named by the ops on either
// side. Per rank; fires at >= 5% of the step and >= 0.5 ms per step, in at least half of >= 2
// steps.
#include <algorithm>
#include <map>

#include "analysis/catalogue.h"
#include "analysis/idle_host_activity.h"
#include "analysis/trace_idle_causes.h"
#include "base/str_format.h"

namespace commdx::analysis {

namespace {

constexpr double kMinStepShare = 0.05;
constexpr int64_t kMinSavingNs = 500'000;

struct Between {
  uint32_t before = 0;
  uint32_t after = 0;
  int64_t idle_ns = 0;
  int64_t stretches = 0;
  int64_t host_ns = 0;
};

// The pair of ops the most host-gap idle lies between, over the given step windows, and how
// many stretches those windows hold.
Between Busiest(const std::vector<HostGapCharge>& gaps,
                const std::vector<const StepBreakdown*>& steps, int64_t& stretches) {
  std::map<std::pair<uint32_t, uint32_t>, Between> pairs;
  stretches = 0;
  for (const HostGapCharge& g : gaps) {
    const bool in_step = std::any_of(steps.begin(), steps.end(), [&](const StepBreakdown* s) {
      return g.start_ns < s->end_ns && g.end_ns > s->start_ns;
    });
    if (!in_step) continue;
    ++stretches;
    Between& b = pairs[{g.before, g.after}];
    b.before = g.before, b.after = g.after;
    b.idle_ns += g.idle_ns;
    b.host_ns += g.end_ns - g.start_ns;
    ++b.stretches;
  }
  Between best;
  for (const auto& [key, b] : pairs)
    if (b.idle_ns > best.idle_ns) best = b;
  return best;
}

}  // namespace

std::vector<Finding> FindHostGap(const TraceSet& set, const TraceFacts& f, const Options&) {
  std::vector<Finding> out;
  for (size_t i = 0; i < set.ranks.size(); ++i) {
    const StepBreakdown& m = f.rank_means[i];
    if (m.step == 0 || i >= f.ranks()) continue;
    const double step_ns = static_cast<double>(m.total_ns());
    const double idle = static_cast<double>(m.idle_host_gap_ns);
    if (idle < kMinSavingNs || idle < kMinStepShare * step_ns) continue;
    const auto steps = StepsOfMean(f.steps, static_cast<int>(i));
    if (steps.size() < 2) continue;  // one step (or the whole trace): nothing says it recurs
    const auto with = std::count_if(steps.begin(), steps.end(),
                                    [](const StepBreakdown* s) { return s->idle_host_gap_ns > 0; });
    if (2 * static_cast<size_t>(with) < steps.size()) continue;
    const RankTrace& t = set.ranks[i];
    int64_t stretches = 0;
    const Between b = Busiest(f.timeline(i).idle.host_gaps, steps, stretches);
    const std::string before = b.before ? t.names[b.before] : "the start";
    const std::string after = b.after ? t.names[b.after] : "the end";
    const double n = static_cast<double>(steps.size());
    Finding x = NewFinding("trace.host_gap");
    x.rank = t.rank;
    x.severity = idle > 0.4 * step_ns   ? Severity::kError
                 : idle > 0.2 * step_ns ? Severity::kWarning
                                        : Severity::kInfo;
    x.title = StrFormat(
        "Rank %d's GPU idles %.0f%% of the step while the host runs code outside any profiled "
        "op (between '%s' and '%s')",
        t.rank, 100.0 * idle / step_ns, before.c_str(), after.c_str());
    x.detail = StrFormat(
        "Rank %d's GPU has nothing to run for %.2f ms per step (%.1f%% of a %.2f ms step) while "
        "no thread that launches GPU work is inside a CPU op, annotation or CUDA call: %.1f "
        "such stretches of >= 1 ms per step, in %lld of %zu steps. Most of it (%.2f ms per "
        "step, %lld stretches of %.2f ms on average) lies after '%s' ended and before '%s' "
        "began. Unprofiled host work there (logging, metrics, checkpointing, Python between "
        "steps) keeps the GPU waiting.",
        t.rank, idle / 1e6, 100.0 * idle / step_ns, step_ns / 1e6,
        static_cast<double>(stretches) / n, static_cast<long long>(with), steps.size(),
        static_cast<double>(b.idle_ns) / n / 1e6, static_cast<long long>(b.stretches),
        b.stretches ? static_cast<double>(b.host_ns) / static_cast<double>(b.stretches) / 1e6 : 0.0,
        before.c_str(), after.c_str());
    x.metrics = {{"gpu_idle_outside_ops_per_step", idle, Unit::kNs},
                 {"host_gaps_per_step", static_cast<double>(stretches) / n, Unit::kCount},
                 {"step_time", step_ns, Unit::kNs}};
    x.refs.push_back({SourceLoc{t.file}, "rank " + std::to_string(t.rank) + ": between '" + before +
                                             "' and '" + after + "', mean over " +
                                             std::to_string(m.step) + " steps"});
    x.fix =
        "Take the host work between steps off the GPU's critical path: log and compute metrics "
        "every N steps, keep values on the GPU and read them once (no per-step .cpu()/print), "
        "save checkpoints asynchronously (torch.distributed.checkpoint.async_save or a "
        "background thread), and wrap what remains in record_function() so that the next "
        "profile names it.";
    x.saving_ns_per_step = std::min(idle, step_ns);
    x.step_ns = step_ns;
    x.confidence = 0.8;
    out.push_back(std::move(x));
  }
  return out;
}

}  // namespace commdx::analysis
