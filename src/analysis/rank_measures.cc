#include "analysis/rank_measures.h"

#include <map>

#include "analysis/trace_findings.h"
#include "analysis/trace_host_sync.h"

namespace commdx::analysis {

std::shared_ptr<const RankDigest> DigestOf(const RankTrace& t) {
  if (auto d = std::dynamic_pointer_cast<const RankDigest>(t.derived)) return d;
  auto d = std::make_shared<RankDigest>();
  const RankTimeline timeline = BuildTimeline(t);
  d->measures = MeasureRank(t, timeline);
  d->timeline = PackedTimeline(timeline);
  return d;
}

void DigestRank(RankTrace& t, bool free_events) {
  t.derived = DigestOf(t);
  if (free_events) t.FreeEvents();
}

RankMeasures MeasureRank(const RankTrace& t, const RankTimeline& timeline) {
  RankMeasures m;
  m.gpu_ops = t.gpu_ops.size();
  m.profiler_cost = EstimateProfilerCost(t);
  std::vector<int64_t> kernel_ns;
  for (const GpuOp& op : t.gpu_ops)
    if (op.kind == GpuOpKind::kKernel) kernel_ns.push_back(op.end_ns - op.start_ns);
  m.median_kernel_ns = Median(std::move(kernel_ns));
  for (const RuntimeCall& rc : t.runtime) m.launches += (rc.flags & kHostFlagLaunch) != 0;
  if (!t.runtime.empty())
    for (const GpuOp& op : t.gpu_ops)
      if (op.launch < 0 && op.kind != GpuOpKind::kSync) m.orphan_starts.push_back(op.start_ns);

  std::map<std::string, int64_t> loaders;
  std::vector<int64_t> call_cpu;
  t.ForEachHostOp([&](const HostOp& op) {
    if (op.flags & kHostFlagDataLoader) loaders[t.names[op.name]] += op.end_ns - op.start_ns;
    if ((op.flags & kHostFlagCollective) && t.names[op.name] == "record_param_comms")
      call_cpu.push_back(op.end_ns - op.start_ns);
  });
  if (!loaders.empty()) {
    auto best = loaders.begin();
    for (auto it = loaders.begin(); it != loaders.end(); ++it)
      if (it->second > best->second) best = it;
    m.data_loader_op = best->first;
  }
  m.median_call_cpu_ns = Median(std::move(call_cpu));
  m.gradient_comm_after_backward = GradientCommAfterBackward(t);

  const std::vector<StepBreakdown> windows = RankStepWindows(t, 0, m.orphan_starts);
  const std::vector<const StepBreakdown*> mean = StepsOfMean(windows, 0);
  m.serial_gpus = MeasureSerialGpus(t);
  m.alloc_calls = MeasureAllocCalls(t, mean);
  m.stretched = MeasureStretched(t, timeline.comm, mean);
  m.comm_serial = MeasureCommSerialized(t);
  m.queued = MeasureQueuedGaps(t, timeline.idle.queued, mean);
  if (t.has_gpu) m.hta = ComputeHtaCompat(t);
  m.host_syncs = MeasureHostSyncs(t, 0, timeline, mean);
  return m;
}

}  // namespace commdx::analysis
