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
  // Asked for ops in start order, so a cursor walks the marks once.
  bool Is(const HostOp& op) {
    if (op.flags & kHostFlagStep) return true;
    if (static_cast<int32_t>(op.thread) != t_.main_thread) return false;
    while (at_ < spans_.size() && spans_[at_].start < op.start_ns) ++at_;
    return at_ < spans_.size() && spans_[at_].start == op.start_ns && spans_[at_].end == op.end_ns;
  }

 private:
  const RankTrace& t_;
  std::vector<Interval> spans_;
  size_t at_ = 0;
};

// One pass over the runtime calls: CUDA-graph capture regions (cudaStreamBeginCapture ...
// cudaStreamEndCapture per thread, and cudaGraphInstantiate calls, which build the graph from
// what was captured; a capture still open at the end of the trace runs to its end, an end whose
// begin is not in the trace starts at the trace's start), allocator calls per thread, and the
// threads that launch GPU work (with the main thread: those whose activity keeps the GPU fed).
void ReadRuntime(const RankTrace& t, HostActivity& a, std::vector<char>& threads) {
  std::vector<Interval> capture;
  std::vector<std::vector<Interval>> alloc(t.threads.size());
  std::vector<int64_t> open(t.threads.size(), -1);
  std::vector<int8_t> instantiate(t.names.size(), -1);  // per name: is cudaGraphInstantiate*
  threads.assign(t.threads.size(), 0);
  for (const RuntimeCall& rc : t.runtime) {
    if (rc.thread >= threads.size()) continue;
    if (rc.flags & kHostFlagLaunch) {
      threads[rc.thread] = 1;
    } else if (rc.flags & kHostFlagAlloc) {
      alloc[rc.thread].push_back({rc.start_ns, rc.end_ns});
    } else if (rc.flags & kHostFlagCapture) {
      int64_t& o = open[rc.thread];
      if (Contains(t.names[rc.name], "Begin")) {
        if (o < 0) o = rc.start_ns;
      } else {
        capture.push_back({o < 0 ? t.first_ns : o, rc.end_ns});
        o = -1;
      }
    } else if (rc.flags == kHostFlagNone) {
      int8_t& inst = instantiate[rc.name];
      if (inst < 0) inst = Contains(t.names[rc.name], "GraphInstantiate") ? 1 : 0;
      if (inst) capture.push_back({rc.start_ns, rc.end_ns});
    }
  }
  for (int64_t o : open)
    if (o >= 0) capture.push_back({o, std::max(o, t.last_ns)});
  a.capture = MergeIntervals(std::move(capture));
  for (auto& x : alloc) a.alloc.push_back(MergeIntervals(std::move(x)));
  if (t.main_thread >= 0 && static_cast<size_t>(t.main_thread) < threads.size())
    threads[static_cast<size_t>(t.main_thread)] = 1;
}

// One pass over the host ops: data-loading regions per thread, and top-level ops per thread
// (an op starting before the thread's current top-level op ends is inside it; ops are sorted by
// start); `all` gets those of the `threads` marked, in start order.
void ReadHostOps(const RankTrace& t, StepMarks& marks, const std::vector<char>& threads,
                 HostActivity& a, std::vector<TopOp>& all) {
  std::vector<std::vector<Interval>> data(t.threads.size());
  a.top_ops.assign(t.threads.size(), {});
  t.ForEachHostOp([&](const HostOp& op) {
    if (op.thread >= data.size()) return;
    if (op.flags & kHostFlagDataLoader) data[op.thread].push_back({op.start_ns, op.end_ns});
    if (marks.Is(op)) return;
    auto& v = a.top_ops[op.thread];
    if (!v.empty() && op.start_ns < v.back().end_ns) return;
    v.push_back({op.start_ns, op.end_ns, op.name});
    if (threads[op.thread]) all.push_back(v.back());
  });
  for (auto& d : data) a.data.push_back(MergeIntervals(std::move(d)));
}

// The stretches of >= kMinHostGapNs in which none of `threads` was inside a top-level op (`ops`,
// theirs) or a runtime call, between the first and the last op, with the ops on either side.
// Both lists are sorted by start, so one merge walk covers them.
std::vector<HostGapCharge> Stretches(const RankTrace& t, const std::vector<TopOp>& ops,
                                     const std::vector<char>& threads,
                                     const std::vector<Interval>& marks) {
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
  std::vector<char> threads;
  ReadRuntime(t, a, threads);
  StepMarks marks(t);
  std::vector<TopOp> all;
  ReadHostOps(t, marks, threads, a, all);
  a.stretches = Stretches(t, all, threads, marks.spans());
  for (const HostGapCharge& s : a.stretches) a.stretch_spans.push_back({s.start_ns, s.end_ns});
  return a;
}

}  // namespace commdx::analysis
