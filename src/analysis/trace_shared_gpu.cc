// trace.shared_gpu: another process's work is time-sliced onto this rank's GPU. The GPU then
// switches contexts in slices of milliseconds, and a kernel that is running when its context is
// switched out ends a whole slice later: the same kernel (name and grid) mostly runs at its
// usual time and now and then a few milliseconds longer. Kernels no other process delays run
// within a few tens of percent of their own median. Counted: compute kernels (not NCCL's, which
// wait for peers) of a (name, grid) seen at least kMinRuns times in the rank's complete steps
// whose 10th and 40th percentile runs lie within kMaxSpread (a steady kernel: one name over work
// of many sizes is not one), the runs over twice their median and at least kMinStretchNs longer;
// the saving is what those runs took over their median. A run that overlaps one of the rank's own
// NCCL kernels is not counted (its own communication may slow it). Fires at >= 10% of the step
// and >= 0.5 ms per step.
#include <algorithm>
#include <map>

#include "analysis/catalogue.h"
#include "analysis/trace_findings.h"
#include "base/str_format.h"
#include "base/text.h"

namespace commdx::analysis {

namespace {

constexpr size_t kMinRuns = 4;
constexpr double kMaxSpread = 1.5;
constexpr int64_t kMinStretchNs = 200'000;
constexpr double kMinStepShare = 0.10;
constexpr int64_t kMinSavingNs = 500'000;

}  // namespace

Stretched MeasureStretched(const RankTrace& t, const Intervals& comm,
                           const std::vector<const StepBreakdown*>& steps) {
  std::map<std::pair<uint32_t, int32_t>, std::vector<const GpuOp*>> runs;
  StepCursor in(steps);
  for (const GpuOp& op : t.gpu_ops) {  // by start
    if (op.kind != GpuOpKind::kKernel) continue;
    const StepBreakdown* s = in.At(op.start_ns);
    if (s && op.end_ns <= s->end_ns) runs[{op.name, op.grid_x}].push_back(&op);
  }
  Stretched s;
  std::vector<int64_t> ns;
  for (const auto& [key, ops] : runs) {
    s.kernels += static_cast<int64_t>(ops.size());
    if (ops.size() < kMinRuns) continue;
    ns.clear();
    for (const GpuOp* op : ops) ns.push_back(op->end_ns - op->start_ns);
    // A steady kernel only: its 10th and 40th percentile runs within kMaxSpread of each other
    // (the faster runs, which time slices leave alone even when many runs are held up). Runs of
    // one name on work of many sizes (a grid the trace does not give) spread widely there and
    // are not compared.
    std::sort(ns.begin(), ns.end());
    const double p10 = static_cast<double>(ns[ns.size() / 10]);
    const double p40 = static_cast<double>(ns[ns.size() * 2 / 5]);
    if (p40 > kMaxSpread * p10) continue;
    const int64_t median = Median(ns);
    for (const GpuOp* op : ops) {
      const int64_t d = op->end_ns - op->start_ns;
      if (d <= 2 * median || d - median < kMinStretchNs) continue;
      // Slowed by this process's own communication beside it (memory bandwidth, SMs), not
      // necessarily by another process: not counted.
      if (LengthIn(comm, op->start_ns, op->end_ns) > 0) continue;
      s.extra_ns += d - median;
      ++s.runs;
      s.extras.push_back(d - median);
      s.by_name[key.first] += d - median;
    }
  }
  return s;
}

std::vector<Finding> FindSharedGpu(const TraceSet& set, const TraceFacts& f, const Options&) {
  std::vector<Finding> out;
  for (size_t i = 0; i < set.ranks.size(); ++i) {
    const StepBreakdown& m = f.rank_means[i];
    if (m.step == 0) continue;
    const RankTrace& t = set.ranks[i];
    const auto steps = StepsOfMean(f.steps, static_cast<int>(i));
    if (steps.empty()) continue;
    const Stretched& s = f.measure(i).stretched;
    const double n = static_cast<double>(steps.size());
    const double step_ns = static_cast<double>(m.total_ns());
    const double extra = static_cast<double>(s.extra_ns) / n;
    if (extra < kMinSavingNs || extra < kMinStepShare * step_ns) continue;
    auto top = std::max_element(s.by_name.begin(), s.by_name.end(),
                                [](const auto& a, const auto& b) { return a.second < b.second; });
    const int64_t typical = Median(s.extras);

    Finding x = NewFinding("trace.shared_gpu");
    x.rank = t.rank;
    x.severity = extra > 0.25 * step_ns ? Severity::kError : Severity::kWarning;
    x.title = StrFormat(
        "Rank %d's GPU is shared with another process: its kernels are held up %.0f%% of the "
        "step",
        t.rank, 100.0 * extra / step_ns);
    x.detail = StrFormat(
        "%lld of rank %d's %lld compute kernels in %zu steps ran more than twice their own "
        "median time (the same kernel and grid), typically %s longer: %.2f ms per step (%.1f%% "
        "of a %.2f ms step) over their usual time. Extra time of about one size on kernels of "
        "every kind is how a GPU time-sliced between processes looks: a kernel that is running "
        "when the GPU switches to another process's work ends a whole slice later.",
        static_cast<long long>(s.runs), t.rank, static_cast<long long>(s.kernels), steps.size(),
        FormatDurationNs(static_cast<double>(typical)).c_str(), extra / 1e6,
        100.0 * extra / step_ns, step_ns / 1e6);
    if (top != s.by_name.end())
      x.detail += StrFormat(" Held up most: '%s' (%.2f ms per step).", t.names[top->first].c_str(),
                            static_cast<double>(top->second) / n / 1e6);
    x.metrics = {{"kernel_extra_per_step", extra, Unit::kNs},
                 {"stretched_kernels_per_step", static_cast<double>(s.runs) / n, Unit::kCount},
                 {"typical_stretch", static_cast<double>(typical), Unit::kNs},
                 {"step_time", step_ns, Unit::kNs}};
    x.refs.push_back({SourceLoc{t.file}, "rank " + std::to_string(t.rank) + ": mean over " +
                                             std::to_string(steps.size()) + " steps"});
    x.fix =
        "Give the rank its GPU to itself: find what else runs on it (nvidia-smi "
        "--query-compute-apps=pid,name,used_memory --format=csv on the node: another job, an "
        "inference server, a notebook, a second rank placed on the same GPU by a wrong "
        "CUDA_VISIBLE_DEVICES or LOCAL_RANK), and stop it or move it; where sharing is intended, "
        "MPS or MIG gives each process a fixed share instead of time slices.";
    x.saving_ns_per_step = std::min(extra, step_ns);
    x.step_ns = step_ns;
    x.confidence = 0.75;
    out.push_back(std::move(x));
  }
  return out;
}

}  // namespace commdx::analysis
