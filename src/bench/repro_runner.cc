#include "bench/repro_runner.h"

#include <algorithm>
#include <chrono>

#include "base/text.h"
#include "bench/coll_runner.h"
#include "bench/measure.h"
#include "bench/stats.h"

namespace commdx::bench {

namespace {

Result<double> StepUs(Backend& b, Watchdog* wd, const ReproSpec& spec, const RunOptions& o) {
  static const char* kModes[] = {"overlapped", "serial", "compute-only", "communication-only"};
  std::string what = std::string("repro step (") + kModes[spec.mode] + ", buckets of " +
                     FormatBytes(static_cast<double>(spec.bucket_bytes)) + ")";
  if (wd) wd->Arm(what + " (warm-up)");
  COMMDX_TRY(b.TimeRepro(spec, std::max(1, o.warmup)));
  if (wd) wd->Arm(what);
  COMMDX_ASSIGN_OR_RETURN(TimeMatrix t,
                          MeasureAdaptive([&](int n) { return b.TimeRepro(spec, n); }, o));
  return Summarize(t).median_ns / 1e3;
}

}  // namespace

Result<BenchResult> RunRepro(Backend& b, Watchdog* wd, const RunOptions& o) {
  auto t0 = std::chrono::steady_clock::now();
  BenchResult result = NewLiveResult(b, "repro");
  result.repro_grad_bytes = static_cast<double>(o.grad_bytes);
  result.repro_compute_us = o.compute_ms * 1e3;
  if (!b.Info().sm_kernels) {
    result.notes.push_back(
        "repro waived: commdx was built without nvcc, so it has no compute "
        "kernel of set duration");
    return result;
  }
  if (o.grad_bytes == 0 || o.bucket_bytes.empty())
    return MakeError(ErrorCode::kUsage, "repro needs --grad-size > 0 and at least one bucket size");
  COMMDX_TRY(b.Reserve(o.grad_bytes, 0));
  ReproSpec base;
  base.grad_bytes = o.grad_bytes;
  base.compute_us = o.compute_ms * 1e3;
  base.bucket_bytes = o.grad_bytes;
  base.mode = ReproSpec::kComputeOnly;
  COMMDX_ASSIGN_OR_RETURN(double compute_us, StepUs(b, wd, base, o));
  for (uint64_t bucket : o.bucket_bytes) {
    ReproSpec s = base;
    s.bucket_bytes = std::min<uint64_t>(std::max<uint64_t>(bucket, 4), o.grad_bytes);
    ReproPoint p;
    p.bucket_bytes = s.bucket_bytes;
    p.buckets = static_cast<int>((o.grad_bytes + s.bucket_bytes - 1) / s.bucket_bytes);
    p.compute_only_us = compute_us;
    s.mode = ReproSpec::kCommOnly;
    COMMDX_ASSIGN_OR_RETURN(p.comm_only_us, StepUs(b, wd, s, o));
    s.mode = ReproSpec::kSerial;
    COMMDX_ASSIGN_OR_RETURN(p.step_serial_us, StepUs(b, wd, s, o));
    s.mode = ReproSpec::kOverlap;
    COMMDX_ASSIGN_OR_RETURN(p.step_overlap_us, StepUs(b, wd, s, o));
    result.repro.push_back(p);
    if (o.progress) o.progress("repro bucket " + FormatBytes(static_cast<double>(bucket)));
  }
  if (wd) wd->Disarm();
  result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

}  // namespace commdx::bench
