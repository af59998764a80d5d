// trace.comm_serialized: communication and compute that could run together run one after the
// other. Two signs, per rank:
//   * NCCL kernels share a stream with compute kernels (>= 10% of that stream's time each);
//   * compute kernels that were ready before an NCCL kernel was even launched (launched earlier,
//     their stream idle) start only when it ends — nothing in the program orders them, so the
//     hardware queue does (CUDA_DEVICE_MAX_CONNECTIONS=1) — for >= 30% of the NCCL kernels.
// A kernel launched before the NCCL kernel cannot wait on an event recorded after it, so data
// dependencies do not produce the second sign.
#include <algorithm>
#include <cstdio>
#include <map>

#include "analysis/catalogue.h"
#include "analysis/trace_findings.h"
#include "base/str_format.h"

namespace commdx::analysis {

namespace {

constexpr double kSharedShare = 0.10;
constexpr double kBlockedShare = 0.30;
constexpr int64_t kSlackNs = 5'000;  // "starts when it ends": within 5 µs
constexpr size_t kMinCommKernels = 4;

}  // namespace

CommSerialSigns MeasureCommSerialized(const RankTrace& t) {
  CommSerialSigns s;
  if (t.steps.empty()) return s;  // the finding needs steps: not measured
  for (const StreamInfo& st : t.streams) {
    double comm = static_cast<double>(st.comm_ns), busy = static_cast<double>(st.busy_ns);
    if (busy > 0 && comm >= kSharedShare * busy && busy - comm >= kSharedShare * busy) {
      s.shared_stream = true;
      s.stream = st.stream;
    }
  }
  // Last end of an op per stream, walked in start order.
  std::map<int32_t, int64_t> stream_end;
  const auto& ops = t.gpu_ops;
  for (size_t i = 0; i < ops.size(); ++i) {
    const GpuOp& c = ops[i];
    if (c.kind != GpuOpKind::kCommKernel || c.launch < 0) continue;
    ++s.comm;
    const int64_t comm_launch = t.runtime[c.launch].start_ns;
    int64_t held = 0;
    for (size_t j = i + 1; j < ops.size() && ops[j].start_ns <= c.end_ns + kSlackNs; ++j) {
      const GpuOp& k = ops[j];
      if (k.kind != GpuOpKind::kKernel || k.stream == c.stream || k.launch < 0) continue;
      if (k.start_ns < c.end_ns - kSlackNs) continue;           // ran beside it
      if (t.runtime[k.launch].end_ns >= comm_launch) continue;  // may depend on it
      // Its stream had nothing left to run when the NCCL kernel started.
      int64_t prev_end = INT64_MIN;
      for (size_t p = j; p-- > 0;)
        if (ops[p].stream == k.stream && ops[p].kind != GpuOpKind::kSync) {
          prev_end = ops[p].end_ns;
          break;
        }
      if (prev_end > c.start_ns) continue;
      held = std::max(held, k.start_ns - std::max(prev_end, c.start_ns));
    }
    if (held > 0) {
      ++s.blocked;
      s.held_ns += held;
    }
  }
  return s;
}

std::vector<Finding> FindCommSerialized(const TraceSet& set, const TraceFacts& f, const Options&) {
  std::vector<Finding> out;
  for (size_t i = 0; i < set.ranks.size(); ++i) {
    const RankTrace& t = set.ranks[i];
    if (t.steps.empty()) continue;
    const CommSerialSigns& s = f.measure(i).comm_serial;
    if (s.comm < kMinCommKernels) continue;
    bool blocked = static_cast<double>(s.blocked) >= kBlockedShare * static_cast<double>(s.comm);
    if (!s.shared_stream && !blocked) continue;
    const StepBreakdown& m = f.rank_means[i];
    Finding x = NewFinding("trace.comm_serialized");
    x.rank = t.rank;
    if (s.shared_stream) {
      x.title = "NCCL kernels run on the compute stream of rank " + std::to_string(t.rank);
      x.detail = StrFormat(
          "Stream %d carries both NCCL and compute kernels, so each collective waits for "
          "the compute before it and blocks the compute after it. Harmless where the "
          "collective's result is needed right away (e.g. an all-to-all dispatch).",
          s.stream);
      x.fix =
          "Issue collectives that should overlap compute with async_op=True (DDP/FSDP do "
          "this): PyTorch runs blocking collectives (async_op=False) on the current stream.";
      if (!blocked) x.severity = Severity::kInfo;
    } else {
      x.title = "Compute waits behind NCCL kernels on rank " + std::to_string(t.rank) +
                " although it was ready";
      x.detail = StrFormat(
          "At %zu of %zu NCCL kernels, compute kernels launched before the collective, "
          "on an idle stream, started only when it ended (%.2f ms per step held back): "
          "the GPU runs one hardware queue, as with CUDA_DEVICE_MAX_CONNECTIONS=1.",
          s.blocked, s.comm,
          static_cast<double>(s.held_ns) / static_cast<double>(t.steps.size()) / 1e6);
      x.fix =
          "Unset CUDA_DEVICE_MAX_CONNECTIONS (or set it to 8 or more) unless tensor-parallel "
          "kernels need the ordering; keep NCCL on its own streams.";
    }
    x.metrics = {
        {"comm_kernels", static_cast<double>(s.comm), Unit::kCount},
        {"comm_kernels_holding_compute", static_cast<double>(s.blocked), Unit::kCount},
        {"overlap_share", m.comm_ns() ? static_cast<double>(m.comm_overlapped_ns) / m.comm_ns() : 0,
         Unit::kRatio}};
    x.refs.push_back({SourceLoc{t.file}, "rank " + std::to_string(t.rank)});
    int64_t exposed = m.comm_exposed_ns - m.comm_exposed_wait_ns;
    if (blocked)
      x.saving_ns_per_step = static_cast<double>(
          std::min<int64_t>(exposed, s.held_ns / static_cast<int64_t>(t.steps.size())));
    x.confidence = s.shared_stream ? 0.8 : 0.7;
    out.push_back(std::move(x));
  }
  return out;
}

}  // namespace commdx::analysis
