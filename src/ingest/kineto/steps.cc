#include "ingest/kineto/steps.h"

#include <algorithm>
#include <map>

#include "base/text.h"

namespace commdx::ingest::kineto {

namespace {

int32_t PickMainThread(const RankTrace& t) {
  std::vector<uint32_t> steps(t.threads.size()), ops(t.threads.size());
  for (const auto& op : t.host_ops) {
    if (op.flags & kHostFlagStep) ++steps[op.thread];
    if (op.kind == HostOpKind::kCpuOp) ++ops[op.thread];
  }
  int32_t best = -1;
  for (size_t i = 0; i < t.threads.size(); ++i) {
    if (best < 0 || steps[i] > steps[best] || (steps[i] == steps[best] && ops[i] > ops[best]))
      best = static_cast<int32_t>(i);
  }
  return best;
}

// ProfilerStep#12 -> 12
int64_t StepNumber(std::string_view name) {
  size_t hash = name.find('#');
  if (hash == name.npos) return -1;
  auto v = ParseInt(Trim(name.substr(hash + 1)));
  return v ? *v : -1;
}

bool FromProfilerSteps(RankTrace& t) {
  std::map<int64_t, Step> by_number;
  for (const auto& op : t.host_ops) {
    if (!(op.flags & kHostFlagStep) || static_cast<int32_t>(op.thread) != t.main_thread) continue;
    int64_t n = StepNumber(t.names[op.name]);
    Step& s = by_number[n];
    if (s.cpu_end_ns - s.cpu_start_ns < op.end_ns - op.start_ns)
      s = Step{n, op.start_ns, op.end_ns, 0, 0};
  }
  if (by_number.empty()) return false;
  for (auto& [n, s] : by_number) t.steps.push_back(s);
  std::sort(t.steps.begin(), t.steps.end(),
            [](const Step& a, const Step& b) { return a.cpu_start_ns < b.cpu_start_ns; });
  t.step_source = StepSource::kProfilerStep;
  t.step_name = "ProfilerStep#N";
  return true;
}

// A user annotation on the main thread that repeats without overlapping itself and covers at
// least half of the thread's span (so "DistributedDataParallel.forward" is not taken for a step).
bool FromAnnotation(RankTrace& t) {
  struct Cand {
    std::vector<const HostOp*> ops;
    int64_t covered = 0;
    bool overlaps = false;
  };
  std::map<uint32_t, Cand> cands;
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const auto& op : t.host_ops) {
    if (static_cast<int32_t>(op.thread) != t.main_thread) continue;
    lo = std::min(lo, op.start_ns);
    hi = std::max(hi, op.end_ns);
    if (op.kind != HostOpKind::kUserAnnotation) continue;
    if (op.flags & (kHostFlagDataLoader | kHostFlagCollective)) continue;
    if (StartsWith(t.names[op.name], "Optimizer.")) continue;
    Cand& c = cands[op.name];
    if (!c.ops.empty() && op.start_ns < c.ops.back()->end_ns) c.overlaps = true;
    c.ops.push_back(&op);
    c.covered += op.end_ns - op.start_ns;
  }
  const Cand* best = nullptr;
  uint32_t best_name = 0;
  for (const auto& [name, c] : cands) {
    if (c.ops.size() < 2 || c.overlaps || 2 * c.covered < hi - lo) continue;
    if (!best || c.covered > best->covered) best = &c, best_name = name;
  }
  if (!best) return false;
  int64_t n = 0;
  for (const HostOp* op : best->ops) t.steps.push_back(Step{n++, op->start_ns, op->end_ns, 0, 0});
  t.step_source = StepSource::kAnnotation;
  t.step_name = t.names[best_name];
  return true;
}

// The optimizer step ends an iteration: steps run from one "Optimizer.step#..." end to the next.
bool FromOptimizer(RankTrace& t) {
  std::vector<const HostOp*> ends;
  for (const auto& op : t.host_ops)
    if (static_cast<int32_t>(op.thread) == t.main_thread &&
        StartsWith(t.names[op.name], "Optimizer.step#") &&
        (ends.empty() || op.start_ns >= ends.back()->end_ns))
      ends.push_back(&op);
  if (ends.size() < 2) return false;
  for (size_t i = 1; i < ends.size(); ++i)
    t.steps.push_back(Step{static_cast<int64_t>(i - 1), ends[i - 1]->end_ns, ends[i]->end_ns, 0, 0});
  t.step_source = StepSource::kInferred;
  t.step_name = "between Optimizer.step ends";
  return true;
}

}  // namespace

void DetectSteps(RankTrace& t) {
  t.main_thread = PickMainThread(t);
  t.steps.clear();
  if (!FromProfilerSteps(t) && !FromAnnotation(t) && !FromOptimizer(t)) {
    if (t.last_ns > t.first_ns) {
      t.steps.push_back(Step{0, t.first_ns, t.last_ns, 0, 0});
      t.step_source = StepSource::kWholeTrace;
      t.step_name = "whole trace";
    }
  }
  ComputeGpuWindows(t);
}

void ComputeGpuWindows(RankTrace& t) {
  const size_t n = t.steps.size();
  std::vector<int64_t> first(n, INT64_MAX), last(n, INT64_MIN);
  for (size_t i = 0; i < n; ++i) {
    const Step& s = t.steps[i];
    auto it = std::lower_bound(t.runtime.begin(), t.runtime.end(), s.cpu_start_ns,
                               [](const RuntimeCall& r, int64_t ts) { return r.start_ns < ts; });
    for (; it != t.runtime.end() && it->start_ns < s.cpu_end_ns; ++it) {
      if (it->gpu_op < 0) continue;
      const GpuOp& op = t.gpu_ops[it->gpu_op];
      first[i] = std::min(first[i], op.start_ns);
      last[i] = std::max(last[i], op.end_ns);
    }
  }
  int64_t prev_gpu_end = INT64_MIN, prev_start = INT64_MIN;
  for (size_t i = 0; i < n; ++i) {
    Step& s = t.steps[i];
    int64_t w = std::max(s.cpu_start_ns, prev_gpu_end);
    if (first[i] != INT64_MAX) w = std::min(w, first[i]);
    w = std::max(w, prev_start);
    s.start_ns = w;
    prev_start = w;
    if (last[i] != INT64_MIN) prev_gpu_end = std::max(prev_gpu_end, last[i]);
  }
  for (size_t i = 0; i < n; ++i) {
    Step& s = t.steps[i];
    if (i + 1 < n) {
      s.end_ns = t.steps[i + 1].start_ns;
    } else {
      s.end_ns = std::max(s.cpu_end_ns, last[i] == INT64_MIN ? s.cpu_end_ns : last[i]);
    }
    s.end_ns = std::max(s.end_ns, s.start_ns);
  }
}

}  // namespace commdx::ingest::kineto
