// Steps from marks on the CPU timeline: ProfilerStep#N, the user's own iteration annotations,
// Optimizer.step ends (trace-metrics.md, "Steps").
#include <algorithm>
#include <map>
#include <unordered_map>
#include <vector>

#include "base/text.h"
#include "ingest/trace_build/step_sources.h"

namespace commdx::ingest::trace_build {

namespace {

bool IsAutogradThread(const ThreadInfo& th) { return Contains(ToLower(th.name), "autograd"); }

bool NamedMain(const ThreadInfo& th) {
  std::string n = ToLower(th.name);
  return Contains(n, "main") && !Contains(n, "autograd");
}

// ProfilerStep#12 -> 12
int64_t StepNumber(std::string_view name) {
  size_t hash = name.find('#');
  if (hash == name.npos) return -1;
  auto v = ParseInt(Trim(name.substr(hash + 1)));
  return v ? *v : -1;
}

struct Span {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  int64_t length() const { return hi > lo ? hi - lo : 0; }
};

std::vector<Span> ThreadSpans(const RankTrace& t) {
  std::vector<Span> s(t.threads.size());
  for (const auto& op : t.host_ops) {
    s[op.thread].lo = std::min(s[op.thread].lo, op.start_ns);
    s[op.thread].hi = std::max(s[op.thread].hi, op.end_ns);
  }
  return s;
}

// Could be the user's iteration mark: a record_function name, not a framework operator.
bool MayMarkIteration(const RankTrace& t, const HostOp& op) {
  if (op.flags & (kHostFlagDataLoader | kHostFlagCollective | kHostFlagStep)) return false;
  std::string_view name = t.names[op.name];
  if (name.empty() || StartsWith(name, "Optimizer.")) return false;
  return op.kind == HostOpKind::kUserAnnotation || !Contains(name, "::");
}

}  // namespace

std::string NamePattern(std::string_view name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    if (!IsDigit(name[i])) {
      out += name[i];
    } else if (i == 0 || !IsDigit(name[i - 1])) {
      out += 'N';
    }
  }
  return out;
}

int32_t LikelyMainThread(const RankTrace& t) {
  std::vector<uint32_t> ops(t.threads.size());
  for (const auto& op : t.host_ops)
    if (op.kind == HostOpKind::kCpuOp) ++ops[op.thread];
  auto score = [&](size_t i) {
    const ThreadInfo& th = t.threads[i];
    return std::tuple(!IsAutogradThread(th), NamedMain(th), th.pid_is_tid, ops[i], th.ops);
  };
  int32_t best = -1;
  for (size_t i = 0; i < t.threads.size(); ++i)
    if (best < 0 || score(i) > score(static_cast<size_t>(best))) best = static_cast<int32_t>(i);
  return best;
}

bool StepsFromProfilerMarks(RankTrace& t) {
  std::vector<uint32_t> marks(t.threads.size());
  for (const auto& op : t.host_ops)
    if (op.flags & kHostFlagStep) ++marks[op.thread];
  auto most = std::max_element(marks.begin(), marks.end());
  if (most == marks.end() || *most == 0) return false;
  const auto thread = static_cast<uint32_t>(most - marks.begin());
  std::map<int64_t, Step> by_number;
  for (const auto& op : t.host_ops) {
    if (!(op.flags & kHostFlagStep) || op.thread != thread) continue;
    int64_t n = StepNumber(t.names[op.name]);
    Step& s = by_number[n];
    if (s.cpu_end_ns - s.cpu_start_ns < op.end_ns - op.start_ns)
      s = Step{n, op.start_ns, op.end_ns, 0, 0};
  }
  for (auto& [n, s] : by_number) t.steps.push_back(s);
  std::sort(t.steps.begin(), t.steps.end(),
            [](const Step& a, const Step& b) { return a.cpu_start_ns < b.cpu_start_ns; });
  t.main_thread = static_cast<int32_t>(thread);
  t.step_source = StepSource::kProfilerStep;
  t.step_name = "ProfilerStep#N";
  return true;
}

bool StepsFromAnnotation(RankTrace& t) {
  struct Cand {
    std::vector<const HostOp*> ops;
    int64_t covered = 0;
    bool overlaps = false;
  };
  std::map<std::pair<uint32_t, std::string>, Cand> cands;  // (thread, name pattern)
  // Per thread and per (thread, name): the thread's name and the name's pattern are looked at
  // once, not once per op.
  std::vector<char> autograd(t.threads.size());
  for (size_t i = 0; i < t.threads.size(); ++i) autograd[i] = IsAutogradThread(t.threads[i]);
  std::unordered_map<uint64_t, Cand*> cand_of;
  for (const auto& op : t.host_ops) {
    if (autograd[op.thread] || !MayMarkIteration(t, op)) continue;
    Cand*& slot = cand_of[uint64_t{op.thread} << 32 | op.name];
    if (!slot) slot = &cands[{op.thread, NamePattern(t.names[op.name])}];
    Cand& c = *slot;
    if (!c.ops.empty() && op.start_ns < c.ops.back()->end_ns) c.overlaps = true;
    c.ops.push_back(&op);
    c.covered += op.end_ns - op.start_ns;
  }
  const std::vector<Span> spans = ThreadSpans(t);
  const int32_t main = LikelyMainThread(t);
  const int64_t main_span = main < 0 ? 0 : spans[main].length();
  const std::pair<const std::pair<uint32_t, std::string>, Cand>* best = nullptr;
  for (const auto& entry : cands) {
    const Cand& c = entry.second;
    if (c.ops.size() < 3 || c.overlaps) continue;
    if (2 * c.covered < spans[entry.first.first].length() || 2 * c.covered < main_span) continue;
    if (!best || c.covered > best->second.covered) best = &entry;
  }
  // Marks on only part of the trace: a capture of the whole run (start-up, warm-up, then the
  // marked iterations; nsys without a capture range) or marks on some iterations. A run of the
  // same mark back to back, at least 90% of its own window, is the iterations there; a mark
  // inside each iteration (a per-layer range) leaves the rest of the iteration between its runs.
  if (!best) {
    for (const auto& entry : cands) {
      const Cand& c = entry.second;
      if (c.ops.size() < 3 || c.overlaps) continue;
      const int64_t window = c.ops.back()->end_ns - c.ops.front()->start_ns;
      if (window <= 0 || 10 * c.covered < 9 * window) continue;
      if (!best || c.covered > best->second.covered) best = &entry;
    }
  }
  if (!best) return false;
  int64_t n = 0;
  for (const HostOp* op : best->second.ops)
    t.steps.push_back(Step{n++, op->start_ns, op->end_ns, 0, 0});
  t.main_thread = static_cast<int32_t>(best->first.first);
  t.step_source = StepSource::kAnnotation;
  t.step_name = best->first.second;
  return true;
}

bool StepsFromOptimizer(RankTrace& t) {
  // Top-level Optimizer.step#... ops per thread (a nested one never starts a new end).
  std::vector<std::vector<const HostOp*>> ends(t.threads.size());
  for (const auto& op : t.host_ops) {
    auto& e = ends[op.thread];
    if (StartsWith(t.names[op.name], "Optimizer.step#") &&
        (e.empty() || op.start_ns >= e.back()->end_ns))
      e.push_back(&op);
  }
  const int32_t main = LikelyMainThread(t);
  size_t thread = main < 0 ? 0 : static_cast<size_t>(main);
  for (size_t i = 0; i < ends.size(); ++i)
    if (ends[i].size() > ends[thread].size()) thread = i;
  if (ends.empty() || ends[thread].size() < 2) return false;
  const auto& e = ends[thread];
  const int64_t first = ThreadSpans(t)[thread].lo;
  t.steps.push_back(Step{0, first, e[0]->end_ns, 0, 0});
  t.steps.back().cut = true;  // where its iteration began is not marked
  for (size_t i = 1; i < e.size(); ++i)
    t.steps.push_back(Step{static_cast<int64_t>(i), e[i - 1]->end_ns, e[i]->end_ns, 0, 0});
  t.main_thread = static_cast<int32_t>(thread);
  t.step_source = StepSource::kOptimizer;
  t.step_name = NamePattern(t.names[e[0]->name]);
  return true;
}

}  // namespace commdx::ingest::trace_build
