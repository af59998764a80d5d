#include "analysis/idle_host_activity.h"

#include <algorithm>

#include "base/text.h"

namespace commdx::analysis {

namespace {

// A step mark (ProfilerStep#N, or the user's iteration annotation the steps came from) spans
// the whole step: it is the step, not an op the host is busy in.
class StepMarks {
 public:
  explicit StepMarks(const RankTrace& t) : t_(t) {
    if (t.step_source == StepSource::kProfilerStep || t.step_source == StepSource::kAnnotation)
      for (const Step& s : t.steps) spans_.push_back({s.cpu_start_ns, s.cpu_end_ns});
    std::sort(spans_.begin(), spans_.end(),
              [](const Interval& a, const Interval& b) { return a.start < b.start; });
  }
  const std::vector<Interval>& spans() const { return spans_; }
  bool Is(const HostOp& op) const {
    if (op.flags & kHostFlagStep) return true;
    auto it = std::lower_bound(spans_.begin(), spans_.end(), op.start_ns,
                               [](const Interval& x, int64_t ts) { return x.start < ts; });
    return it != spans_.end() && it->start == op.start_ns && it->end == op.end_ns &&
           static_cast<int32_t>(op.thread) == t_.main_thread;
  }

 private:
  const RankTrace& t_;
  std::vector<Interval> spans_;
};

// cudaStreamBeginCapture ... cudaStreamEndCapture per thread, and cudaGraphInstantiate calls
// (building the graph from what was captured). A capture still open at the end of the trace runs
// to its end; an end whose begin is not in the trace starts at the trace's start.
Intervals CaptureRegions(const RankTrace& t) {
  std::vector<Interval> out;
  std::vector<int64_t> open(t.threads.size(), -1);
  std::vector<int8_t> instantiate(t.names.size(), -1);  // per name: is cudaGraphInstantiate*
  for (const RuntimeCall& rc : t.runtime) {
    if (rc.flags & kHostFlagCapture) {
      int64_t& o = open[rc.thread];
      if (Contains(t.names[rc.name], "Begin")) {
        if (o < 0) o = rc.start_ns;
      } else {
        out.push_back({o < 0 ? t.first_ns : o, rc.end_ns});
        o = -1;
      }
      continue;
    }
    int8_t& inst = instantiate[rc.name];
    if (inst < 0) inst = Contains(t.names[rc.name], "GraphInstantiate") ? 1 : 0;
    if (inst) out.push_back({rc.start_ns, rc.end_ns});
  }
  for (int64_t o : open)
    if (o >= 0) out.push_back({o, std::max(o, t.last_ns)});
  return MergeIntervals(std::move(out));
}

// Top-level ops per thread: an op starting before the thread's current top-level op ends is
// inside it (ops are sorted by start).
std::vector<std::vector<TopOp>> TopOpsByThread(const RankTrace& t, const StepMarks& marks) {
  std::vector<std::vector<TopOp>> out(t.threads.size());
  for (const HostOp& op : t.host_ops) {
    if (op.thread >= out.size() || marks.Is(op)) continue;
    auto& v = out[op.thread];
    if (!v.empty() && op.start_ns < v.back().end_ns) continue;
    v.push_back({op.start_ns, op.end_ns, op.name});
  }
  return out;
}

// Threads whose activity keeps the GPU fed: those that launch GPU work, and the main thread.
std::vector<char> HostThreads(const RankTrace& t) {
  std::vector<char> on(t.threads.size(), 0);
  for (const RuntimeCall& rc : t.runtime)
    if ((rc.flags & kHostFlagLaunch) && rc.thread < on.size()) on[rc.thread] = 1;
  if (t.main_thread >= 0 && static_cast<size_t>(t.main_thread) < on.size())
    on[static_cast<size_t>(t.main_thread)] = 1;
  return on;
}

// The stretches of >= kMinHostGapNs in which none of `threads` was inside a top-level op or a
// runtime call, between the first and the last of them, with the ops on either side. Both
// lists are sorted by start, so one merge walk covers them.
std::vector<HostGapCharge> Stretches(const RankTrace& t,
                                     const std::vector<std::vector<TopOp>>& top_ops,
                                     const std::vector<char>& threads,
                                     const std::vector<Interval>& marks) {
  std::vector<TopOp> ops;
  for (size_t th = 0; th < top_ops.size(); ++th)
    if (threads[th]) ops.insert(ops.end(), top_ops[th].begin(), top_ops[th].end());
  std::sort(ops.begin(), ops.end(),
            [](const TopOp& a, const TopOp& b) { return a.start_ns < b.start_ns; });
  std::vector<HostGapCharge> out;
  if (ops.empty()) return out;  // no profiled op: nothing tells a host gap from launching
  size_t i = 0, r = 0;
  bool started = false;
  int64_t covered_to = 0;
  uint32_t last_name = 0;  // the op (or call) that reaches furthest so far
  while (i < ops.size() || r < t.runtime.size()) {
    TopOp next;
    if (r < t.runtime.size() && (i == ops.size() || t.runtime[r].start_ns < ops[i].start_ns)) {
      const RuntimeCall& rc = t.runtime[r++];
      if (rc.thread >= threads.size() || !threads[rc.thread]) continue;
      next = {rc.start_ns, rc.end_ns, rc.name};
    } else {
      next = ops[i++];
    }
    if (started && next.start_ns - covered_to >= kMinHostGapNs)
      out.push_back({covered_to, next.start_ns, last_name, next.name, 0});
    if (!started || next.end_ns > covered_to) covered_to = next.end_ns, last_name = next.name;
    started = true;
  }
  // Runtime calls before the first op or after the last are outside what the ops (and step
  // marks: the last step's host work can follow its last op) bound: a capture with a few
  // annotations and CUDA calls everywhere else is no host gap outside them.
  int64_t lo = ops.front().start_ns, hi = 0;
  for (const TopOp& op : ops) hi = std::max(hi, op.end_ns);
  for (const Interval& m : marks) lo = std::min(lo, m.start), hi = std::max(hi, m.end);
  for (HostGapCharge& s : out)
    s.start_ns = std::max(s.start_ns, lo), s.end_ns = std::min(s.end_ns, hi);
  std::erase_if(out, [](const HostGapCharge& s) { return s.end_ns - s.start_ns < kMinHostGapNs; });
  return out;
}

}  // namespace

HostActivity CollectHostActivity(const RankTrace& t) {
  HostActivity a;
  a.capture = CaptureRegions(t);
  std::vector<std::vector<Interval>> data(t.threads.size()), alloc(t.threads.size());
  for (const HostOp& op : t.host_ops)
    if ((op.flags & kHostFlagDataLoader) && op.thread < data.size())
      data[op.thread].push_back({op.start_ns, op.end_ns});
  for (const RuntimeCall& rc : t.runtime)
    if ((rc.flags & kHostFlagAlloc) && rc.thread < alloc.size())
      alloc[rc.thread].push_back({rc.start_ns, rc.end_ns});
  for (auto& d : data) a.data.push_back(MergeIntervals(std::move(d)));
  for (auto& x : alloc) a.alloc.push_back(MergeIntervals(std::move(x)));
  const StepMarks marks(t);
  a.top_ops = TopOpsByThread(t, marks);
  a.stretches = Stretches(t, a.top_ops, HostThreads(t), marks.spans());
  for (const HostGapCharge& s : a.stretches) a.stretch_spans.push_back({s.start_ns, s.end_ns});
  return a;
}

}  // namespace commdx::analysis
