// trace.serial_gpus: one process drives several GPUs and they mostly run one at a time — a
// model split across GPUs by layer (`.to("cuda:1")` in forward, accelerate's device_map="auto",
// DataParallel's scatter and gather) without pipelining. Each GPU idles while the others work,
// yet the rank's GPU timeline (busy while any GPU is busy) looks busy. Per step window: each
// GPU's busy time, and the time any of them is busy; the cost is what the step would save if
// the work overlapped so that only the busiest GPU set the pace (union - busiest). Fires with
// >= 2 GPUs each busy >= 5% of the step, at >= 10% of the step and >= 0.5 ms per step.
#include <algorithm>
#include <map>
#include <string>

#include "analysis/catalogue.h"
#include "analysis/trace_findings.h"
#include "analysis/trace_timeline.h"
#include "base/str_format.h"
#include "base/text.h"

namespace commdx::analysis {

namespace {

constexpr double kMinDeviceShare = 0.05;
constexpr double kMinStepShare = 0.10;
constexpr int64_t kMinCostNs = 500'000;

}  // namespace

SerialGpus MeasureSerialGpus(const RankTrace& t) {
  SerialGpus m;
  std::map<int, std::vector<Interval>> raw;
  for (const GpuOp& op : t.gpu_ops)
    if (op.kind != GpuOpKind::kSync && op.device >= 0 && op.end_ns > op.start_ns)
      raw[op.device].push_back({op.start_ns, op.end_ns});
  if (raw.size() < 2) return m;
  Intervals any;
  std::map<int, Intervals> busy;
  for (auto& [dev, v] : raw) {
    busy[dev] = MergeIntervals(std::move(v));
    any = UnionOf(any, busy[dev]);
    m.busy_ns[dev] = 0;
  }
  std::vector<Interval> used;
  for (const Step& s : StepWindows(t)) {
    if (s.cut || s.end_ns <= s.start_ns) continue;
    used.push_back({s.start_ns, s.end_ns});
    ++m.steps;
    m.step_ns += static_cast<double>(s.end_ns - s.start_ns);
    m.union_ns += static_cast<double>(LengthIn(any, s.start_ns, s.end_ns));
    double busiest = 0;
    for (auto& [dev, b] : busy) {
      const double ns = static_cast<double>(LengthIn(b, s.start_ns, s.end_ns));
      m.busy_ns[dev] += ns;
      busiest = std::max(busiest, ns);
    }
    m.busiest_ns += busiest;
  }
  const Intervals steps = MergeIntervals(std::move(used));
  for (const GpuOp& op : t.gpu_ops)
    if (op.copy == CopyKind::kPtoP && LengthIn(steps, op.start_ns, op.start_ns + 1) > 0) {
      ++m.peer_copies;
      m.peer_copy_ns += static_cast<double>(op.end_ns - op.start_ns);
    }
  return m;
}

namespace {

std::string GpuList(const SerialGpus& m, double steps, double step_ns) {
  std::string s;
  for (const auto& [dev, busy] : m.busy_ns)
    s += StrFormat("%sGPU %d busy %.2f ms (%.0f%%)", s.empty() ? "" : ", ", dev, busy / steps / 1e6,
                   100 * busy / std::max(1.0, step_ns * steps));
  return s;
}

}  // namespace

std::vector<Finding> FindSerialGpus(const TraceSet& set, const TraceFacts& f, const Options&) {
  std::vector<Finding> out;
  for (size_t i = 0; i < set.ranks.size(); ++i) {
    const RankTrace& t = set.ranks[i];
    const SerialGpus& m = f.measure(i).serial_gpus;
    if (m.steps == 0 || m.step_ns <= 0) continue;
    const double n = m.steps, step = m.step_ns / n;
    const int active =
        static_cast<int>(std::count_if(m.busy_ns.begin(), m.busy_ns.end(), [&](const auto& g) {
          return g.second / n >= kMinDeviceShare * step;
        }));
    const double cost = (m.union_ns - m.busiest_ns) / n;
    if (active < 2 || cost < kMinCostNs || cost < kMinStepShare * step) continue;
    double summed = 0;
    for (const auto& [dev, busy] : m.busy_ns) summed += busy / n;
    Finding x = NewFinding("trace.serial_gpus");
    x.rank = t.rank;
    x.title = StrFormat("Rank %d drives %d GPUs that mostly run one at a time", t.rank, active);
    x.detail = StrFormat(
        "In a %.2f ms step: %s; some GPU is busy %.2f ms, so the GPUs overlap for only %.2f ms "
        "of their %.2f ms of work. Each GPU idles while the others run: a model split across "
        "GPUs by layer without pipelining. Overlapped so that the busiest GPU set the pace, "
        "the step would be about %.2f ms shorter.",
        step / 1e6, GpuList(m, n, step).c_str(), m.union_ns / n / 1e6,
        (summed - m.union_ns / n) / 1e6, summed / 1e6, cost / 1e6);
    if (m.peer_copies > 0)
      x.detail += StrFormat(
          " Activations move between the GPUs by %.0f peer copies "
          "per step (%.2f ms).",
          m.peer_copies / n, m.peer_copy_ns / n / 1e6);
    x.metrics = {{"step_time", step, Unit::kNs},
                 {"gpus", static_cast<double>(active), Unit::kCount},
                 {"any_gpu_busy_per_step", m.union_ns / n, Unit::kNs},
                 {"busiest_gpu_per_step", m.busiest_ns / n, Unit::kNs},
                 {"serial_time_per_step", cost, Unit::kNs}};
    x.refs.push_back({SourceLoc{t.file}, "rank " + std::to_string(t.rank) + " mean over " +
                                             std::to_string(m.steps) + " steps"});
    x.fix =
        "Pipeline the GPUs: split each batch into micro-batches so that one GPU works on the "
        "next while another finishes the last (torch.distributed.pipelining, DeepSpeed or "
        "Megatron pipeline parallelism); if the model fits on one GPU, run one process per GPU "
        "with DDP or FSDP instead of placing layers on different GPUs.";
    x.saving_ns_per_step = cost;
    x.confidence = 0.8;
    out.push_back(std::move(x));
  }
  return out;
}

}  // namespace commdx::analysis
