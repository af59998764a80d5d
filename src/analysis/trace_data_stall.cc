// trace.data_stall: the GPU idles while the thread it waits on is inside a data-loading region
// (DataLoader __next__, TorchRec's load_batch, record_function("data"), ...): the `data` part of
// the one idle attribution (idle_attribution.h). Per rank; fires at >= 5% of the step and
// >= 0.5 ms per step.
#include <cstdio>

#include "analysis/catalogue.h"
#include "analysis/trace_findings.h"
#include "base/str_format.h"

namespace commdx::analysis {

namespace {

constexpr double kMinStepShare = 0.05;
constexpr int64_t kMinCostNs = 500'000;

}  // namespace

std::vector<Finding> FindDataStall(const TraceSet& set, const TraceFacts& f, const Options&) {
  std::vector<Finding> out;
  for (size_t i = 0; i < set.ranks.size(); ++i) {
    const StepBreakdown& m = f.rank_means[i];
    if (m.step == 0) continue;
    const double step_ns = static_cast<double>(m.total_ns());
    const double stall = static_cast<double>(m.idle_data_ns);
    if (stall < kMinCostNs || stall < kMinStepShare * step_ns) continue;
    const RankTrace& t = set.ranks[i];
    const std::string& op = f.measure(i).data_loader_op;
    const std::string name = op.empty() ? "data loading" : op;
    Finding x = NewFinding("trace.data_stall");
    x.rank = t.rank;
    x.severity = stall > 0.4 * step_ns   ? Severity::kError
                 : stall > 0.2 * step_ns ? Severity::kWarning
                                         : Severity::kInfo;
    x.title =
        "Rank " + std::to_string(t.rank) + " starves its GPU while loading data ('" + name + "')";
    std::string buf = StrFormat(
        "Rank %d's GPU is idle for %.2f ms per step (%.1f%% of a %.2f ms step) while its "
        "main thread is in '%s'.",
        t.rank, stall / 1e6, 100.0 * stall / step_ns, step_ns / 1e6, name.c_str());
    x.detail = buf;
    if (set.ranks.size() > 1)
      x.detail += " Other ranks wait for it at the next collective (trace.arrival_skew).";
    x.metrics = {{"gpu_idle_in_data_loading_per_step", stall, Unit::kNs},
                 {"step_time", step_ns, Unit::kNs}};
    x.refs.push_back({SourceLoc{t.file}, "rank " + std::to_string(t.rank) + ": '" + name +
                                             "', mean over " + std::to_string(m.step) + " steps"});
    x.fix =
        "Load data ahead of the GPU: DataLoader(num_workers>0, pin_memory=True, "
        "prefetch_factor, persistent_workers=True), move decoding/augmentation off the main "
        "thread, check the storage of this rank.";
    x.saving_ns_per_step = stall;
    x.confidence = 0.85;
    out.push_back(std::move(x));
  }
  return out;
}

}  // namespace commdx::analysis
