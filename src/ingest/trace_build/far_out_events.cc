// Finishing a rank, before sorting: events far outside the trace's span (model/far_out.h) are
// left out, with the collectives their kernels carried, and noted.
#include <cstdint>

#include "base/text.h"
#include "ingest/trace_build/rank_builder.h"
#include "model/far_out.h"

namespace commdx::ingest::trace_build {

void RankBuilder::DropFarOut() {
  const TimeWindow w = FarOutWindow(trace_);
  if (w.lo_ns == INT64_MIN && w.hi_ns == INT64_MAX) return;  // nothing can be far out
  // The ids beside the events first, while the events still say which go.
  auto keep_beside = [&w](const auto& events, auto& side) {
    size_t kept = 0;
    for (size_t i = 0; i < events.size(); ++i)
      if (w.Keeps(events[i].start_ns, events[i].end_ns)) side[kept++] = side[i];
    side.resize(kept);
  };
  keep_beside(trace_.gpu_ops, gpu_ids_);
  keep_beside(trace_.runtime, runtime_correlation_);
  const FarOutDropped d = DropFarOutEvents(trace_, w);
  if (d.count == 0) return;
  // GpuOp::collective indexes colls_ until SortAndLink: keep the pending collectives of the
  // kernels that stay, in their order.
  std::vector<PendingColl> kept;
  for (size_t i = 0; i < trace_.gpu_ops.size(); ++i) {
    GpuOp& op = trace_.gpu_ops[i];
    if (op.collective < 0) continue;
    kept.push_back(colls_[op.collective]);
    kept.back().gpu_op = static_cast<int32_t>(i);
    op.collective = static_cast<int32_t>(kept.size() - 1);
  }
  colls_.swap(kept);
  std::erase_if(ext_args_, [&w](const PendingColl& p) { return !w.Keeps(p.start_ns, p.end_ns); });
  std::string_view name = names_.Lookup(d.name);  // kernel names run to 1,000 characters
  std::string shown = SanitizeUtf8(name.substr(0, 80)) + (name.size() > 80 ? "..." : "");
  const std::string message = FarOutMessage(d, shown, w, trace_.base_time_ns);
  for (uint64_t i = 0; i < d.count; ++i)  // counted one by one, as every skipped event is
    quality_.Add("kineto.far_out_events", DiagSeverity::kWarning, message, SourceLoc{trace_.file});
}

}  // namespace commdx::ingest::trace_build
