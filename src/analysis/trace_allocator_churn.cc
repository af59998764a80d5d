// trace.allocator_churn: the GPU idles while the thread it waits on is inside an allocator call
// (cudaMalloc, cudaFree, cudaHostAlloc, hipMalloc, hipFree...; kHostFlagAlloc): the `alloc` part
// of the one idle attribution (idle_attribution.h). PyTorch's caching allocator calls cudaMalloc
// only on a cache miss and cudaFree only from empty_cache() or when an allocation fails, so
// calls in every step mean the cache is emptied or fragmented (new tensor sizes each step).
// Per rank; fires at >= 5% of the step and >= 0.5 ms per step, in at least half of >= 2 steps
// (the first iterations fill the cache once; a trace without steps is mostly start-up). A
// warning from 10% of the step: the fix (a warm cache) costs nothing and is safe, so a tenth of
// the step is worth naming as the root cause; an error from 40%.
#include <algorithm>
#include <map>
#include <string>

#include "analysis/catalogue.h"
#include "analysis/trace_idle_causes.h"
#include "base/str_format.h"

namespace commdx::analysis {

namespace {

constexpr double kMinStepShare = 0.05;
constexpr int64_t kMinSavingNs = 500'000;
constexpr double kWarningShare = 0.10;
constexpr double kErrorShare = 0.40;

}  // namespace

// The allocator calls that start inside the given step windows.
AllocCalls MeasureAllocCalls(const RankTrace& t, const std::vector<const StepBreakdown*>& steps) {
  AllocCalls c;
  std::vector<int64_t> open_until(t.threads.size(), INT64_MIN);
  for (const RuntimeCall& rc : t.runtime) {
    if (!(rc.flags & kHostFlagAlloc) || rc.thread >= open_until.size()) continue;
    int64_t& until = open_until[rc.thread];
    if (rc.start_ns < until) continue;  // inside the previous call of the thread
    until = rc.end_ns;
    const bool in_step = std::any_of(steps.begin(), steps.end(), [&](const StepBreakdown* s) {
      return rc.start_ns >= s->start_ns && rc.start_ns < s->end_ns;
    });
    if (!in_step) continue;
    ++c.calls;
    c.host_ns += rc.end_ns - rc.start_ns;
    ++c.by_name[t.names[rc.name]];
  }
  return c;
}

std::vector<Finding> FindAllocatorChurn(const TraceSet& set, const TraceFacts& f, const Options&) {
  std::vector<Finding> out;
  for (size_t i = 0; i < set.ranks.size(); ++i) {
    const StepBreakdown& m = f.rank_means[i];
    if (m.step == 0) continue;
    const double step_ns = static_cast<double>(m.total_ns());
    const double idle = static_cast<double>(m.idle_alloc_ns);
    if (idle < kMinSavingNs || idle < kMinStepShare * step_ns) continue;
    const auto steps = StepsOfMean(f.steps, static_cast<int>(i));
    if (steps.size() < 2) continue;  // one step (or the whole trace): nothing says it recurs
    const auto with = std::count_if(steps.begin(), steps.end(),
                                    [](const StepBreakdown* s) { return s->idle_alloc_ns > 0; });
    if (2 * static_cast<size_t>(with) < steps.size()) continue;  // a one-off fill of the cache
    const RankTrace& t = set.ranks[i];
    const AllocCalls& calls = f.measure(i).alloc_calls;
    const double n = static_cast<double>(steps.size());
    std::string names;
    for (const auto& [name, count] : calls.by_name)
      names += (names.empty() ? "" : ", ") + StrFormat("%.0f %s", count / n, name.c_str());
    bool hip = false;  // ROCm: hipMalloc/hipFree, PyTorch's HIP allocator
    for (const auto& [name, count] : calls.by_name) hip = hip || name.rfind("hip", 0) == 0;
    Finding x = NewFinding("trace.allocator_churn");
    x.rank = t.rank;
    x.severity = idle > kErrorShare * step_ns     ? Severity::kError
                 : idle > kWarningShare * step_ns ? Severity::kWarning
                                                  : Severity::kInfo;
    x.title =
        StrFormat("Rank %d's GPU idles %.0f%% of the step while the host is in the %s allocator",
                  t.rank, 100.0 * idle / step_ns, hip ? "HIP" : "CUDA");
    x.detail = StrFormat(
        "Rank %d's GPU has nothing to run for %.2f ms per step (%.1f%% of a %.2f ms step) while "
        "the thread that launches its work is inside allocator calls: %.1f calls per step (%s), "
        "%.2f ms of host time in them per step, in %lld of %zu steps. The caching allocator "
        "calls the driver only when its cache cannot serve a request: every step, that means "
        "the cache is emptied (torch.cuda.empty_cache()), tensors change size each step, or "
        "caching is off altogether (PYTORCH_NO_CUDA_MEMORY_CACHING=1, often left over from a "
        "memory-debugging run: every tensor then goes to the driver and back).",
        t.rank, idle / 1e6, 100.0 * idle / step_ns, step_ns / 1e6,
        static_cast<double>(calls.calls) / n, names.c_str(),
        static_cast<double>(calls.host_ns) / n / 1e6, static_cast<long long>(with), steps.size());
    x.metrics = {
        {"gpu_idle_in_allocator_per_step", idle, Unit::kNs},
        {"allocator_calls_per_step", static_cast<double>(calls.calls) / n, Unit::kCount},
        {"allocator_host_time_per_step", static_cast<double>(calls.host_ns) / n, Unit::kNs},
        {"step_time", step_ns, Unit::kNs}};
    x.refs.push_back({SourceLoc{t.file}, "rank " + std::to_string(t.rank) + ": " + names +
                                             " per step, mean over " + std::to_string(m.step) +
                                             " steps"});
    x.fix =
        "Check that the caching allocator is on (PYTORCH_NO_CUDA_MEMORY_CACHING unset). Keep "
        "the allocator's cache warm: no torch.cuda.empty_cache() inside the training loop; "
        "set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (fewer, growable segments, less "
        "fragmentation); give tensors fixed shapes (pad variable-length batches to a few bucket "
        "sizes) or allocate buffers once and reuse them (out= arguments, preallocated "
        "workspaces).";
    x.saving_ns_per_step = std::min(idle, step_ns);
    x.step_ns = step_ns;
    x.confidence = 0.85;
    out.push_back(std::move(x));
  }
  return out;
}

}  // namespace commdx::analysis
