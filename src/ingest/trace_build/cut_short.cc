#include "ingest/trace_build/cut_short.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace commdx::ingest::trace_build {

namespace {

// Kineto writes a trace's CPU ops first, then its runtime calls and GPU activity, in an order
// of its own: by time in some traces, in blocks that visit the steps more than once in others
// (the public A100 DDP trace: part of step 6, then steps 4, 5, 6). A cut in that second half
// takes launches and GPU work from several steps, not only from the last one. Training steps
// repeat: in every public trace each step has the same launches per thread, the same GPU ops
// per stream, and the same number of launches without a GPU op (0, or the odd cudaMemsetAsync:
// 1 of 1259 per step in the A100 DDP trace, 47 of 1266 in the V100 one). A step lost work to
// the cut when it has fewer launches on a thread, or fewer GPU ops on a stream, than the
// fullest step, or more launches without their GPU op than the least of any step. (What the
// cut took from every step alike cannot be seen this way.) Returns which steps lost work.
std::vector<bool> StepsLost(const RankTrace& t) {
  const size_t n = t.steps.size();
  std::vector<bool> lost(n, false);
  if (t.gpu_ops.empty()) return lost;  // cut before any GPU activity: nothing to tell apart
  // Per lane (a launching thread, or a GPU stream offset past the threads), the count per step.
  const int64_t streams_at = static_cast<int64_t>(t.threads.size());
  std::map<int64_t, std::vector<size_t>> lanes;
  std::vector<size_t> without_op(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const Step& s = t.steps[i];
    auto it = std::lower_bound(t.runtime.begin(), t.runtime.end(), s.cpu_start_ns,
                               [](const RuntimeCall& r, int64_t ts) { return r.start_ns < ts; });
    for (; it != t.runtime.end() && it->start_ns < s.cpu_end_ns; ++it) {
      if (!(it->flags & kHostFlagLaunch)) continue;
      auto& by_thread = lanes[it->thread];
      by_thread.resize(n, 0);
      ++by_thread[i];
      if (it->gpu_op < 0) {
        ++without_op[i];
        continue;
      }
      auto& by_stream = lanes[streams_at + std::max(0, t.gpu_ops[it->gpu_op].stream)];
      by_stream.resize(n, 0);
      ++by_stream[i];
    }
  }
  // GPU work but no launch read (Kineto wrote some kernels ahead of every runtime call): which
  // step any of it belongs to cannot be told, so none is known to be whole.
  if (lanes.empty()) return std::vector<bool>(n, true);
  const size_t least_without = *std::min_element(without_op.begin(), without_op.end());
  for (size_t i = 0; i < n; ++i) lost[i] = without_op[i] > least_without;
  for (const auto& [lane, counts] : lanes) {
    const size_t most = *std::max_element(counts.begin(), counts.end());
    for (size_t i = 0; i < n; ++i) lost[i] = lost[i] || counts[i] < most;
  }
  return lost;
}

std::string Who(const RankTrace& t) {
  return t.rank >= 0 ? "rank " + std::to_string(t.rank) + " (" + t.file + ")" : t.file;
}

}  // namespace

void MarkCutShort(RankTrace& t, const CutShort& cut, Diagnostics& quality) {
  if (!cut.cut) return;
  SourceLoc loc{t.file};
  loc.offset = cut.offset;
  loc.has_offset = true;
  const std::string gzip =
      cut.gzip ? " (its gzip stream ends early: " + std::to_string(cut.bytes) + " bytes inflated)"
               : "";
  if (!cut.in_events) {
    quality.Add("kineto.trace_cut_short", DiagSeverity::kNote,
                Who(t) + " ends before its JSON document does, after its last event" + gzip +
                    ": all " + std::to_string(t.events) + " events were read",
                loc);
    return;
  }
  // The last step always, and every step that lost GPU work. (With every step cut, the
  // analyses fall back on them all: a single step is still measured.)
  const size_t n = t.steps.size();
  std::string steps;
  if (n == 1) {
    t.steps[0].cut = true;
    steps = "; its only step is marked * as incomplete";
  } else if (n >= 2) {
    std::vector<bool> lost = StepsLost(t);
    // A step's GPU window holds work launched in the step before it (the GPU runs behind) and
    // ends where the next one's first work begins: the steps beside one that lost work have
    // numbers that moved too.
    std::vector<bool> mark = lost;
    for (size_t i = 0; i < n; ++i) {
      if (!lost[i]) continue;
      if (i > 0) mark[i - 1] = true;
      if (i + 1 < n) mark[i + 1] = true;
    }
    mark[n - 1] = true;
    size_t marked = 0;
    for (size_t i = 0; i < n; ++i) {
      if (!mark[i] || t.steps[i].cut) continue;
      t.steps[i].cut = true;
      ++marked;
    }
    steps = "; " + std::to_string(marked) +
            " steps (the last one, those whose launches or GPU work were lost, and the steps "
            "beside them) are marked * and left out of the mean";
    bool all = true;
    for (const Step& st : t.steps) all = all && st.cut;
    if (all)
      steps += ": no complete step is left, so this rank's step time and GPU idle are not "
               "measured (the idle would be the work the cut took)";
  }
  if (t.gpu_ops.empty())
    steps +=
        "; the cut came before any GPU activity was written (Kineto writes the CPU ops "
        "first), so no GPU time is measured";
  quality.Add("kineto.trace_cut_short", DiagSeverity::kWarning,
              Who(t) + " ends inside its events at byte " + std::to_string(cut.offset) +
                  (cut.gzip ? gzip : " of its " + std::to_string(cut.bytes)) +
                  ": the file was cut short (the job killed, hung or out of memory while the "
                  "profiler wrote it?); the " +
                  std::to_string(t.events) + " events before the cut were read" + steps,
              loc);
}

}  // namespace commdx::ingest::trace_build
