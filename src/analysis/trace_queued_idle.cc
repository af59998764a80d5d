// trace.queued_idle: the GPU idles although the work that ends the gap had already been
// launched — the `queued` part of the one idle attribution (idle_attribution.h). The CPU is not
// what the GPU waits for, and nothing in the trace runs: the GPU waits for something the trace
// does not record (another process on the same GPU, profiler records that were dropped or cut,
// a host callback or an event wait, a dependency inside a CUDA graph). Gaps under
// kMinQueuedGapNs are the GPU's own latency between queued ops (a few µs each; healthy
// captures show nothing longer) and are left out. Per rank; fires at >= 5% of the step and
// >= 0.5 ms per step, in at least half of >= 2 steps (or in the one window of a trace without
// steps).
#include <algorithm>
#include <map>

#include "analysis/catalogue.h"
#include "analysis/trace_idle_causes.h"
#include "base/str_format.h"
#include "base/text.h"

namespace commdx::analysis {

namespace {

constexpr double kMinStepShare = 0.05;
constexpr int64_t kMinSavingNs = 500'000;

bool IsGraphLaunch(std::string_view name) {
  return name.find("GraphLaunch") != std::string_view::npos;
}

QueuedGaps CollectGaps(const RankTrace& t, const Intervals& queued,
                       const std::vector<const StepBreakdown*>& steps) {
  QueuedGaps q;
  q.per_step.assign(steps.size(), 0);
  StepCursor in(steps);
  const auto& w = in.windows();
  for (const Interval& g : queued) {  // by start
    if (g.end - g.start < kMinQueuedGapNs) continue;
    int64_t inside = 0;
    for (size_t k = in.From(g.start); k < w.size() && w[k]->start_ns < g.end; ++k) {
      const int64_t lo = std::max(g.start, w[k]->start_ns);
      const int64_t hi = std::min(g.end, w[k]->end_ns);
      if (hi > lo) q.per_step[k] += hi - lo, inside += hi - lo;
    }
    if (inside == 0) continue;
    ++q.gaps;
    q.idle_ns += inside;
    q.longest_ns = std::max(q.longest_ns, g.end - g.start);
    auto next = std::lower_bound(t.gpu_ops.begin(), t.gpu_ops.end(), g.end,
                                 [](const GpuOp& op, int64_t ts) { return op.start_ns < ts; });
    while (next != t.gpu_ops.end() && next->kind == GpuOpKind::kSync) ++next;
    if (next == t.gpu_ops.end()) continue;
    q.by_next[next->name] += inside;
    if (next->launch >= 0 &&
        IsGraphLaunch(t.names[t.runtime[static_cast<size_t>(next->launch)].name]))
      q.in_graph_ns += inside;
  }
  return q;
}

// How far the CPU runs ahead: the median time from a launch call's start to its op's start,
// over the ops that start inside the steps.
int64_t MedianLead(const RankTrace& t, const std::vector<const StepBreakdown*>& steps) {
  std::vector<int64_t> lead;
  StepCursor in(steps);
  for (const GpuOp& op : t.gpu_ops) {  // by start
    if (op.launch < 0 || op.kind == GpuOpKind::kSync) continue;
    if (in.At(op.start_ns))
      lead.push_back(op.start_ns - t.runtime[static_cast<size_t>(op.launch)].start_ns);
  }
  return Median(lead);
}

}  // namespace

QueuedGaps MeasureQueuedGaps(const RankTrace& t, const Intervals& queued,
                             const std::vector<const StepBreakdown*>& steps) {
  if (steps.empty()) return {};
  QueuedGaps q = CollectGaps(t, queued, steps);
  q.median_lead_ns = MedianLead(t, steps);
  return q;
}

std::vector<Finding> FindQueuedIdle(const TraceSet& set, const TraceFacts& f, const Options&) {
  std::vector<Finding> out;
  for (size_t i = 0; i < set.ranks.size(); ++i) {
    const StepBreakdown& m = f.rank_means[i];
    if (m.step == 0 || i >= f.ranks()) continue;
    const RankTrace& t = set.ranks[i];
    const auto steps = StepsOfMean(f.steps, static_cast<int>(i));
    if (steps.empty()) continue;
    const QueuedGaps& q = f.measure(i).queued;
    const double n = static_cast<double>(steps.size());
    const double step_ns = static_cast<double>(m.total_ns());
    const double idle = static_cast<double>(q.idle_ns) / n;
    if (idle < kMinSavingNs || idle < kMinStepShare * step_ns) continue;
    const auto with =
        std::count_if(q.per_step.begin(), q.per_step.end(), [](int64_t ns) { return ns > 0; });
    if (steps.size() > 1 && 2 * static_cast<size_t>(with) < steps.size()) continue;
    auto top = std::max_element(q.by_next.begin(), q.by_next.end(),
                                [](const auto& a, const auto& b) { return a.second < b.second; });
    const int64_t lead = q.median_lead_ns;

    Finding x = NewFinding("trace.queued_idle");
    x.rank = t.rank;
    x.severity = idle > 0.2 * step_ns ? Severity::kWarning : Severity::kInfo;
    x.title = StrFormat(
        "Rank %d's GPU idles %.0f%% of the step with its next work already queued: it waits for "
        "something the trace does not record",
        t.rank, 100.0 * idle / step_ns);
    x.detail = StrFormat(
        "Rank %d's GPU runs nothing the trace records for %.2f ms per step (%.1f%% of a %.2f ms "
        "step) although the op that ends each of these gaps had already been launched: %.1f "
        "gaps of >= %lld µs per step, in %lld of %zu steps, the longest %s. The CPU is not "
        "what the GPU waits for (a launch starts running a median %s after its call began).",
        t.rank, idle / 1e6, 100.0 * idle / step_ns, step_ns / 1e6, static_cast<double>(q.gaps) / n,
        static_cast<long long>(kMinQueuedGapNs / 1000), static_cast<long long>(with), steps.size(),
        FormatDurationNs(static_cast<double>(q.longest_ns)).c_str(),
        FormatDurationNs(static_cast<double>(lead)).c_str());
    if (q.in_graph_ns > 0)
      x.detail += StrFormat(
          " %.0f%% of it lies inside CUDA-graph replays (the op ending the gap was launched by a "
          "graph launch).",
          100.0 * static_cast<double>(q.in_graph_ns) / static_cast<double>(q.idle_ns));
    if (top != q.by_next.end())
      x.detail +=
          StrFormat(" The op that ends the most of it: '%s' (%.2f ms per step).",
                    t.names[top->first].c_str(), static_cast<double>(top->second) / n / 1e6);
    x.detail +=
        " What the trace cannot show: another process or container using the same GPU "
        "(time-sliced, or MPS), GPU work whose profiler records were dropped or cut out of the "
        "trace, a host callback or an event the stream waits on, or a dependency inside a CUDA "
        "graph.";
    x.metrics = {{"gpu_idle_queued_per_step", idle, Unit::kNs},
                 {"queued_gaps_per_step", static_cast<double>(q.gaps) / n, Unit::kCount},
                 {"longest_gap", static_cast<double>(q.longest_ns), Unit::kNs},
                 {"launch_lead_median", static_cast<double>(lead), Unit::kNs},
                 {"step_time", step_ns, Unit::kNs}};
    if (q.in_graph_ns > 0)
      x.metrics.push_back(
          {"in_cuda_graphs_per_step", static_cast<double>(q.in_graph_ns) / n, Unit::kNs});
    x.refs.push_back({SourceLoc{t.file},
                      "rank " + std::to_string(t.rank) + ": mean over " +
                          std::to_string(steps.size()) + " steps" +
                          (top != q.by_next.end() ? ", most before '" + t.names[top->first] + "'"
                                                  : std::string())});
    const bool graphs = 2 * q.in_graph_ns >= q.idle_ns;
    x.fix =
        std::string(graphs ? "Most of it lies inside CUDA-graph replays: record a step with Nsight "
                             "Systems and --cuda-graph-trace=node to see each node of the graph "
                             "and what it waits on (host nodes, event waits on other streams). "
                           : "") +
        "Check that nothing else runs on this GPU during the job (nvidia-smi "
        "--query-compute-apps=pid,name,used_memory --format=csv on the node; one training "
        "process per GPU, no stray inference or notebook process, MPS only by intent). Record "
        "the job again with Nsight Systems (nsys profile -t cuda,nvtx), which shows every "
        "process on the GPU, and check the PyTorch profiler's log for dropped CUPTI records "
        "(profile fewer steps).";
    x.saving_ns_per_step = std::min(idle, step_ns);
    x.step_ns = step_ns;
    // An upper bound: what the GPU waited for is not in the trace, so part of the wait may be
    // the job's own (a dependency it needs).
    x.confidence = 0.5;
    out.push_back(std::move(x));
  }
  return out;
}

}  // namespace commdx::analysis
