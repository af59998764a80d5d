// A hand-made rank timeline for the GPU-idle tests: kernels with their launch calls, runtime
// calls and CPU ops on two host threads, sorted and linked as the importer leaves them. Times are
// ns on one clock.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "analysis/trace_step_breakdown.h"
#include "analysis/trace_timeline.h"
#include "ingest/trace_build/names.h"
#include "model/finding.h"
#include "model/trace.h"

namespace commdx::analysis::hand {

constexpr int64_t kMs = 1'000'000;

enum Name : uint32_t {
  kKernel = 1,
  kLaunch,
  kSyncCall,
  kFree,
  kMalloc,
  kBegin,
  kEnd,
  kInstantiate,
  kMm,
  kAdd,
  kStepMark,
  kGraphLaunch,
  kKernelB
};

// One rank with two host threads: 0 the training loop, 1 another thread.
struct Timeline {
  RankTrace t;
  Timeline() {
    t.names = {"",
               "kernel",
               "cudaLaunchKernel",
               "cudaStreamSynchronize",
               "cudaFree",
               "cudaMalloc",
               "cudaStreamBeginCapture",
               "cudaStreamEndCapture",
               "cudaGraphInstantiateWithFlags",
               "aten::mm",
               "aten::add",
               "ProfilerStep#1",
               "cudaGraphLaunch",
               "kernel_b"};
    t.threads = {{"1", "main", 0}, {"2", "other", 0}};
    t.main_thread = 0;
    t.has_gpu = true;
  }
  // A kernel running [start, end), launched by a call [ls, le] on `thread`.
  // `name`/`grid_x`: the kernel's; `via`: the launching call (kLaunch or kGraphLaunch).
  void Kernel(int64_t start, int64_t end, int64_t ls, int64_t le, uint32_t thread = 0,
              Name name = kKernel, int32_t grid_x = 0, Name via = kLaunch) {
    t.runtime.push_back(
        RuntimeCall{ls, le, via, thread, static_cast<int32_t>(t.gpu_ops.size()), kHostFlagLaunch});
    GpuOp op;
    op.start_ns = start;
    op.end_ns = end;
    op.stream = 7;
    op.name = name;
    op.grid_x = grid_x;
    t.gpu_ops.push_back(op);
  }
  // An NCCL kernel of the rank's own running [start, end) on stream 9.
  void Comm(int64_t start, int64_t end, int64_t ls, int64_t le) {
    Kernel(start, end, ls, le);
    t.gpu_ops.back().kind = GpuOpKind::kCommKernel;
    t.gpu_ops.back().stream = 9;
  }
  void Call(int64_t s0, int64_t s1, Name name, uint32_t thread = 0) {
    const uint8_t flags = ingest::trace_build::RuntimeFlags(t.names[name]);
    t.runtime.push_back(RuntimeCall{s0, s1, name, thread, -1, flags});
  }
  void Op(int64_t s, int64_t e, Name name, uint32_t thread = 0) {
    const uint8_t flags = name == kStepMark ? kHostFlagStep : kHostFlagNone;
    const HostOpKind kind = name == kStepMark ? HostOpKind::kUserAnnotation : HostOpKind::kCpuOp;
    t.host_ops.push_back(HostOp{s, e, name, thread, kind, flags});
  }
  // Sorts as the importer leaves it; one step over [lo, hi) unless steps were given.
  void Finish(int64_t lo, int64_t hi) {
    auto by_start = [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; };
    std::stable_sort(t.runtime.begin(), t.runtime.end(), by_start);
    for (size_t i = 0; i < t.runtime.size(); ++i)
      if (t.runtime[i].gpu_op >= 0) t.gpu_ops[t.runtime[i].gpu_op].launch = static_cast<int32_t>(i);
    std::stable_sort(t.gpu_ops.begin(), t.gpu_ops.end(), by_start);
    for (size_t i = 0; i < t.gpu_ops.size(); ++i)
      t.runtime[t.gpu_ops[i].launch].gpu_op = static_cast<int32_t>(i);
    std::stable_sort(t.host_ops.begin(), t.host_ops.end(), by_start);
    t.first_ns = lo;
    t.last_ns = hi;
    if (t.steps.empty()) t.steps = {Step{0, lo, hi, lo, hi}};
  }
  StepBreakdown Measure(int64_t lo, int64_t hi) {
    Finish(lo, hi);
    tl = BuildTimeline(t);
    return MeasureWindow(tl, {}, lo, hi);
  }
  int64_t LaunchIn(Name op) const {
    for (const auto& [name, ns] : tl.idle.launch_ops)
      if (name == op) return ns;
    return 0;
  }
  RankTimeline tl;
};

inline const Finding* FindId(const std::vector<Finding>& fs, const std::string& id) {
  for (const auto& f : fs)
    if (f.id == id) return &f;
  return nullptr;
}

}  // namespace commdx::analysis::hand
