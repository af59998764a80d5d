#include "analysis/trace_step_breakdown.h"

#include <algorithm>

namespace commdx::analysis {

StepBreakdown MeasureWindow(const RankTimeline& tl, const Intervals& wait, int64_t a, int64_t b) {
  StepBreakdown s;
  s.start_ns = a;
  s.end_ns = b;
  const int64_t compute = LengthIn(tl.compute, a, b);
  const int64_t comm = LengthIn(tl.comm, a, b);
  const int64_t both = OverlapIn(tl.compute, tl.comm, a, b);
  const int64_t busy = LengthIn(tl.busy, a, b);
  s.compute_ns = compute - both;
  s.comm_overlapped_ns = both;
  s.comm_exposed_ns = comm - both;
  s.other_gpu_ns = busy - (compute + comm - both);
  // Waiting lies inside NCCL kernels; the exposed part of it is what no compute hides.
  s.comm_exposed_wait_ns = LengthIn(wait, a, b) - OverlapIn(wait, tl.compute, a, b);
  s.comm_exposed_wait_ns =
      std::max<int64_t>(0, std::min(s.comm_exposed_wait_ns, s.comm_exposed_ns));
  const int64_t idle = (b - a) - busy;
  // The idle parts come from the one attribution (idle_attribution.h); the clamps only keep the
  // sums exact where a window reaches past the rank's events.
  s.idle_data_ns = std::clamp<int64_t>(LengthIn(tl.idle.data, a, b), 0, idle);
  s.idle_host_ns = idle - s.idle_data_ns;
  s.idle_sync_ns = std::min(LengthIn(tl.idle.sync, a, b), s.idle_host_ns);
  int64_t left = s.idle_host_ns - s.idle_sync_ns;
  auto part = [&](const Intervals& x) {
    const int64_t v = std::min(LengthIn(x, a, b), left);
    left -= v;
    return v;
  };
  s.idle_queued_ns = part(tl.idle.queued);
  s.idle_alloc_ns = part(tl.idle.alloc);
  s.idle_capture_ns = part(tl.idle.capture);
  s.idle_host_gap_ns = part(tl.idle.host_gap);
  return s;
}

std::vector<StepBreakdown> RankStepWindows(const RankTrace& t, int trace,
                                           const std::vector<int64_t>& orphans) {
  std::vector<StepBreakdown> out;
  if (!t.has_gpu) return out;
  for (const Step& st : StepWindows(t)) {
    StepBreakdown s;
    s.start_ns = st.start_ns;
    s.end_ns = st.end_ns;
    s.trace = trace;
    s.rank = t.rank;
    s.step = st.number;
    auto it = std::lower_bound(orphans.begin(), orphans.end(), st.start_ns);
    s.partial = st.cut || (it != orphans.end() && *it < st.end_ns);
    out.push_back(s);
  }
  return out;
}

std::vector<StepBreakdown> RankStepBreakdown(const TraceSet& set, size_t ti,
                                             const RankTimeline& timeline,
                                             const std::vector<int64_t>& orphans,
                                             const CrossRank& cross) {
  static const Intervals kNone;
  const Intervals& wait = ti < cross.wait.size() ? cross.wait[ti] : kNone;
  std::vector<StepBreakdown> out = RankStepWindows(set.ranks[ti], static_cast<int>(ti), orphans);
  for (StepBreakdown& s : out) {
    StepBreakdown m = MeasureWindow(timeline, wait, s.start_ns, s.end_ns);
    m.trace = s.trace;
    m.rank = s.rank;
    m.step = s.step;
    m.partial = s.partial;
    if (ti < cross.unmeasured.size())
      m.comm_unmeasured_ns = LengthIn(cross.unmeasured[ti], s.start_ns, s.end_ns);
    s = m;
  }
  return out;
}

// Whether a rank's incomplete steps are measured: only where it has no complete step and just
// one step (a trace of one step, or of one window with no marks). Several steps all incomplete
// are a trace cut short whose every step lost GPU work (Kineto writes its events by kind: a cut
// can keep a step's CPU ops and lose its kernels), and their GPU idle would be the lost work.
namespace {

bool FallBackOnIncomplete(const std::vector<StepBreakdown>& steps, int trace) {
  int n = 0;
  for (const auto& s : steps) {
    if (s.trace != trace) continue;
    if (!s.partial) return false;
    ++n;
  }
  return n == 1;
}

}  // namespace

std::vector<const StepBreakdown*> StepsOfMean(const std::vector<StepBreakdown>& steps, int trace) {
  const bool skip_partial = !FallBackOnIncomplete(steps, trace);
  std::vector<const StepBreakdown*> out;
  for (const auto& s : steps)
    if (s.trace == trace && !(s.partial && skip_partial)) out.push_back(&s);
  return out;
}

StepCursor::StepCursor(std::vector<const StepBreakdown*> steps) : steps_(std::move(steps)) {
  std::sort(steps_.begin(), steps_.end(), [](const StepBreakdown* a, const StepBreakdown* b) {
    return a->start_ns < b->start_ns;
  });
}

size_t StepCursor::From(int64_t ts) {
  while (k_ < steps_.size() && steps_[k_]->end_ns <= ts) ++k_;
  return k_;
}

const StepBreakdown* StepCursor::At(int64_t ts) {
  const size_t k = From(ts);
  return k < steps_.size() && steps_[k]->start_ns <= ts ? steps_[k] : nullptr;
}

StepBreakdown MeanOfRank(const std::vector<StepBreakdown>& steps, int trace) {
  StepBreakdown m;
  m.trace = trace;
  const bool skip_partial = !FallBackOnIncomplete(steps, trace);
  int64_t n = 0, total = 0;
  for (const auto& s : steps) {
    if (s.trace != trace || (s.partial && skip_partial)) continue;
    m.rank = s.rank;
    ++n;
    total += s.total_ns();
    m.compute_ns += s.compute_ns;
    m.comm_overlapped_ns += s.comm_overlapped_ns;
    m.comm_exposed_ns += s.comm_exposed_ns;
    m.comm_exposed_wait_ns += s.comm_exposed_wait_ns;
    m.comm_unmeasured_ns += s.comm_unmeasured_ns;
    m.other_gpu_ns += s.other_gpu_ns;
    m.idle_host_ns += s.idle_host_ns;
    m.idle_data_ns += s.idle_data_ns;
    m.idle_sync_ns += s.idle_sync_ns;
    m.idle_queued_ns += s.idle_queued_ns;
    m.idle_alloc_ns += s.idle_alloc_ns;
    m.idle_capture_ns += s.idle_capture_ns;
    m.idle_host_gap_ns += s.idle_host_gap_ns;
  }
  m.step = n;
  if (n == 0) return m;
  m.end_ns = total / n;
  m.compute_ns /= n;
  m.comm_overlapped_ns /= n;
  m.comm_exposed_ns /= n;
  m.comm_exposed_wait_ns /= n;
  m.comm_unmeasured_ns /= n;
  m.other_gpu_ns /= n;
  m.idle_host_ns /= n;
  m.idle_data_ns /= n;
  m.idle_sync_ns /= n;
  m.idle_queued_ns /= n;
  m.idle_alloc_ns /= n;
  m.idle_capture_ns /= n;
  m.idle_host_gap_ns /= n;
  return m;
}

}  // namespace commdx::analysis
