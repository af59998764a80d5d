#include "ingest/trace_build/steps.h"

#include <algorithm>
#include <string>

#include "base/str_format.h"
#include "base/text.h"
#include "ingest/trace_build/step_sources.h"

namespace commdx::ingest::trace_build {

namespace {

std::string Ms(int64_t ns) { return StrFormat("%.1f ms", static_cast<double>(ns) / 1e6); }

std::string RankName(const RankTrace& t) {
  return t.rank >= 0 ? "rank " + std::to_string(t.rank) : t.file;
}

// The last step's GPU work is cut by the end of the trace when some of its launches have no GPU
// activity recorded while every earlier launch has (the GPU ran behind and the profiler stopped
// first). Launches made while their thread captures a CUDA graph (cudaStreamBeginCapture ..
// EndCapture) are recorded into the graph, never run: they lose nothing. Returns how many
// launches lost their GPU op.
size_t MarkTruncatedLast(RankTrace& t) {
  if (t.steps.size() < 2 || t.steps.back().cut) return 0;
  const Step& last = t.steps.back();
  size_t lost_before = 0, lost_in_last = 0;
  std::vector<char> capturing(t.threads.size(), 0);
  for (const auto& r : t.runtime) {
    if ((r.flags & kHostFlagCapture) && r.thread < capturing.size())
      capturing[r.thread] = Contains(t.names[r.name], "Begin");
    if (!(r.flags & kHostFlagLaunch) || r.gpu_op >= 0) continue;
    if (r.thread < capturing.size() && capturing[r.thread]) continue;
    if (static_cast<int32_t>(r.thread) != t.main_thread && r.start_ns < last.cpu_start_ns) continue;
    (r.start_ns >= last.cpu_start_ns ? lost_in_last : lost_before) += 1;
  }
  if (lost_in_last == 0 || lost_before > 0) return 0;
  t.steps.back().cut = true;
  return lost_in_last;
}

int64_t MainThreadEnd(const RankTrace& t) {
  int64_t end = INT64_MIN;
  for (const auto& op : t.host_ops)
    if (static_cast<int32_t>(op.thread) == t.main_thread) end = std::max(end, op.end_ns);
  return end;
}

// What the step source means for the numbers: an input-quality note unless ProfilerStep.
void NoteSource(const RankTrace& t, Diagnostics& quality) {
  const std::string who = RankName(t);
  const std::string how =
      " Exact boundaries: call prof.step() each iteration under a torch.profiler schedule "
      "(ProfilerStep#N), or wrap each iteration in record_function(\"train_step\").";
  QualityId id = "kineto.no_step_boundaries";
  std::string what;
  auto severity = DiagSeverity::kNote;
  switch (t.step_source) {
    case StepSource::kAnnotation:
      id = "kineto.steps_from_annotation";
      what = "no ProfilerStep#N marks; steps are the " + std::to_string(t.steps.size()) +
             " repeating \"" + t.step_name + "\" annotations on the main thread.";
      // Marks on the last part of a longer capture (nsys without a capture range: start-up and
      // warm-up unmarked): what comes before the first is in no step.
      if (const int64_t before = t.steps.front().cpu_start_ns - t.first_ns;
          before > t.steps.back().cpu_end_ns - t.steps.front().cpu_start_ns)
        what += " They cover only part of the trace: the " + Ms(before) +
                " before the first (start-up, warm-up) is in no step.";
      break;
    case StepSource::kOptimizer:
      id = "kineto.steps_from_optimizer";
      what =
          "no ProfilerStep#N marks or repeating iteration annotation; a step runs from the end "
          "of one " +
          t.step_name + " to the end of the next.";
      break;
    case StepSource::kCollectives:
      id = "kineto.steps_from_collectives";
      what =
          "no ProfilerStep#N marks, iteration annotation or Optimizer.step; steps are "
          "repetitions of the sequence of collectives (" +
          t.step_name + ").";
      break;
    case StepSource::kWholeTrace:
      id = "kineto.no_step_boundaries";
      severity = DiagSeverity::kWarning;
      what =
          "no iteration boundaries found (no ProfilerStep#N, repeating annotation, "
          "Optimizer.step or repeating collectives): the whole trace (" +
          Ms(t.last_ns - t.first_ns) +
          ") is one step, so every per-step number is for the "
          "whole trace." +
          how;
      break;
    default:
      return;
  }
  if (t.step_source == StepSource::kOptimizer || t.step_source == StepSource::kCollectives) {
    const int64_t tail = std::max<int64_t>(0, MainThreadEnd(t) - t.steps.back().cpu_end_ns);
    what +=
        " The first step (from the start of the trace) is marked * and left out of the "
        "mean; " +
        Ms(tail) + " after the last boundary is in no step." + how;
  }
  quality.Add(id, severity, who + ": " + what, SourceLoc{t.file});
}

}  // namespace

void DetectSteps(RankTrace& t, Diagnostics& quality) {
  t.steps.clear();
  t.main_thread = LikelyMainThread(t);
  if (!StepsFromProfilerMarks(t) && !StepsFromAnnotation(t) && !StepsFromOptimizer(t) &&
      !StepsFromCollectives(t) && t.last_ns > t.first_ns) {
    t.steps.push_back(Step{0, t.first_ns, t.last_ns, 0, 0});
    t.step_source = StepSource::kWholeTrace;
    t.step_name = "whole trace";
  }
  NoteSource(t, quality);
  if (size_t lost = MarkTruncatedLast(t))
    quality.Add("kineto.last_step_cut", DiagSeverity::kNote,
                RankName(t) + ": " + std::to_string(lost) +
                    " launches of the last step have no GPU activity in the trace (the profiler "
                    "stopped before the GPU ran them): the step is marked * and left out of the "
                    "mean.",
                SourceLoc{t.file});
  ComputeGpuWindows(t);
}

void ComputeGpuWindows(RankTrace& t) {
  const size_t n = t.steps.size();
  // first: where the step's GPU work begins — its first compute kernel, else its first op of
  // any kind. A copy or memset runs on its own engine as soon as it is issued (the next batch's
  // H2D copy while the GPU still computes the last step), so it does not mark where the step's
  // work takes over the GPU; with the CPU far ahead it would cut the previous step short.
  std::vector<int64_t> first(n, INT64_MAX), first_any(n, INT64_MAX), last(n, INT64_MIN);
  for (size_t i = 0; i < n; ++i) {
    const Step& s = t.steps[i];
    auto it = std::lower_bound(t.runtime.begin(), t.runtime.end(), s.cpu_start_ns,
                               [](const RuntimeCall& r, int64_t ts) { return r.start_ns < ts; });
    for (; it != t.runtime.end() && it->start_ns < s.cpu_end_ns; ++it) {
      if (it->gpu_op < 0) continue;
      const GpuOp& op = t.gpu_ops[it->gpu_op];
      first_any[i] = std::min(first_any[i], op.start_ns);
      if (op.kind == GpuOpKind::kKernel) first[i] = std::min(first[i], op.start_ns);
      last[i] = std::max(last[i], op.end_ns);
    }
    if (first[i] == INT64_MAX) first[i] = first_any[i];
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

}  // namespace commdx::ingest::trace_build
