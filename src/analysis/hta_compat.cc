#include "analysis/hta_compat.h"

#include <algorithm>
#include <set>

#include "analysis/trace_timeline.h"

namespace commdx::analysis {

namespace {

bool Starts(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool Has(std::string_view s, std::string_view p) { return s.find(p) != s.npos; }

// HTA: last start of an event named like ProfilerStep on the CPU side, which for HTA includes
// gpu_user_annotation events (they have no stream). INT64_MAX when fewer than two step names.
int64_t LastStepStart(const RankTrace& t) {
  std::set<uint32_t> names;
  int64_t last = INT64_MIN;
  auto look = [&](const HostOp& op) {
    if (!Has(t.names[op.name], "ProfilerStep")) return;
    names.insert(op.name);
    last = std::max(last, op.start_ns);
  };
  for (const HostOp& op : t.host_ops) look(op);
  for (const HostOp& op : t.gpu_annotations) look(op);
  return names.size() >= 2 ? last : INT64_MAX;
}

double Pct(int64_t part, int64_t whole) {
  if (whole <= 0) return 0;
  return 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

}  // namespace

HtaKernelType HtaClassify(std::string_view n) {
  // ^nccl.*Kernel
  if (Starts(n, "nccl") && Has(n.substr(4), "Kernel")) return HtaKernelType::kCommunication;
  if (Starts(n, "Memcpy") || Starts(n, "Memset") || Starts(n, "dma")) return HtaKernelType::kMemory;
  // not (^nccl.*Kernel | .*Memcpy | ^Memset | .*Sync)
  if (Has(n, "Memcpy") || Has(n, "Sync")) return HtaKernelType::kOther;
  return HtaKernelType::kComputation;
}

HtaCompat ComputeHtaCompat(const RankTrace& t) {
  HtaCompat r;
  r.rank = t.rank;
  const int64_t cut = LastStepStart(t);
  std::vector<Interval> all, compute, comm;
  for (const GpuOp& op : t.gpu_ops) {
    if (op.stream < 0) continue;
    if (cut != INT64_MAX) {
      if (op.launch < 0 || t.runtime[op.launch].start_ns >= cut) continue;
    }
    Interval iv{op.start_ns, op.end_ns};
    all.push_back(iv);
    switch (HtaClassify(t.names[op.name])) {
      case HtaKernelType::kComputation:
        compute.push_back(iv);
        break;
      case HtaKernelType::kCommunication:
        comm.push_back(iv);
        break;
      default:
        break;
    }
  }
  Intervals busy = MergeIntervals(std::move(all));
  if (busy.empty()) return r;
  Intervals comp = MergeIntervals(std::move(compute));
  Intervals com = MergeIntervals(std::move(comm));
  const int64_t lo = busy.front().start, hi = busy.back().end;
  const int64_t kernel_time = hi - lo;
  const int64_t idle = kernel_time - LengthIn(busy, lo, hi);
  const int64_t compute_ns = LengthIn(comp, lo, hi);
  r.kernel_time_ns = kernel_time;
  r.idle_pct = Pct(idle, kernel_time);
  r.compute_pct = Pct(compute_ns, kernel_time);
  r.non_compute_pct = Pct(kernel_time - compute_ns - idle, kernel_time);
  const int64_t comm_ns = LengthIn(com, lo, hi);
  r.comm_comp_overlap_pct = Pct(OverlapIn(comp, com, lo, hi), comm_ns);
  return r;
}

}  // namespace commdx::analysis
