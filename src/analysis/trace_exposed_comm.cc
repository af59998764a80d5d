// trace.exposed_comm: NCCL kernels running while no compute runs, not counting the time they
// wait for a late peer (that is trace.arrival_skew's). Why it is exposed decides the severity:
// gradient collectives issued only after backward (nothing left to overlap: DDP hooks bypassed,
// all-reduce by hand, no_sync misuse) is a warning; exposure in a rank whose GPU idles for the
// CPU anyway is a consequence of being launch-bound (info).
#include <algorithm>
#include <cstdio>

#include "analysis/catalogue.h"
#include "analysis/trace_findings.h"
#include "base/str_format.h"

namespace commdx::analysis {

namespace {

constexpr int64_t kMinCostNs = 200'000;  // 0.2 ms per step
constexpr double kMinStepShare = 0.05;
constexpr double kAfterBackward = 0.8;    // share of gradient bytes issued after backward
constexpr double kLaunchBoundIdle = 0.3;  // idle-host share of the step

bool IsBackwardOp(const std::string& name) {
  return name.rfind("autograd::engine::evaluate_function", 0) == 0;
}

// With ranks missing, the waiting for them cannot be told from the transfer: the exposed time
// is an upper bound. Only the issue order (collectives issued after backward) is still a
// measured reason; anything else may be a rank not seen arriving late.
void WaitingNotTakenOut(double after_bw, Finding& x) {
  const std::string old = ", not counting time spent waiting for other ranks";
  if (auto at = x.detail.find(old); at != std::string::npos)
    x.detail.replace(at, old.size(), ", waiting for other ranks included");
  const std::string rank_words = " (the rank that waits least for others)";
  if (auto at = x.detail.find(rank_words); at != std::string::npos)
    x.detail.erase(at, rank_words.size());
  x.detail +=
      " Traces of other ranks of this job are missing, so the time spent waiting for "
      "them cannot be taken out: this is an upper bound.";
  if (after_bw >= kAfterBackward) return;
  x.severity = Severity::kInfo;
  // An upper bound, not a measured saving: below the confidence at which an info finding may
  // be named the root cause (diagnose/root_cause.cc).
  x.confidence = std::min(x.confidence, 0.3);
}

}  // namespace

double GradientCommAfterBackward(const RankTrace& t) {
  uint64_t total = 0, after = 0;
  bool saw_backward = false;
  for (const Step& s : t.steps) {
    int64_t last_bw = INT64_MIN;
    t.ForEachHostOpFrom(s.cpu_start_ns, [&](const HostOp& op) {
      if (op.start_ns >= s.cpu_end_ns) return false;
      if (IsBackwardOp(t.names[op.name])) last_bw = std::max(last_bw, op.end_ns);
      return true;
    });
    if (last_bw == INT64_MIN) continue;
    saw_backward = true;
    for (const Collective& c : t.collectives) {
      if (!c.launched || c.issue_ns < s.cpu_start_ns || c.issue_ns >= s.cpu_end_ns) continue;
      if (c.type != CollectiveType::kAllReduce && c.type != CollectiveType::kReduceScatter)
        continue;
      total += c.bytes;
      if (c.issue_ns >= last_bw) after += c.bytes;
    }
  }
  if (!saw_backward || total == 0) return -1;
  return static_cast<double>(after) / static_cast<double>(total);
}

std::vector<Finding> FindExposedComm(const TraceSet& set, const TraceFacts& f, const Options&) {
  // The rank that waits least for others sets the pace: its exposed communication is what the
  // step pays. (A rank that waits for a straggler finishes its own compute early, so its
  // transfers run exposed as a consequence — trace.arrival_skew's, not this finding's.)
  int worst = -1;
  for (size_t i = 0; i < f.rank_means.size(); ++i) {
    const StepBreakdown& m = f.rank_means[i];
    if (m.step == 0) continue;
    if (worst < 0 || m.comm_exposed_wait_ns < f.rank_means[worst].comm_exposed_wait_ns)
      worst = static_cast<int>(i);
  }
  if (worst < 0) return {};
  // Median over its steps: the first step of a trace may hold kernels launched before the
  // profiler started, whose waiting cannot be matched.
  std::vector<int64_t> per_step;
  for (const StepBreakdown& s : f.steps)
    if (s.trace == worst) per_step.push_back(s.comm_exposed_ns - s.comm_exposed_wait_ns);
  const int64_t worst_ns = Median(per_step);
  const StepBreakdown& m = f.rank_means[worst];
  const double step_ns = static_cast<double>(m.total_ns());
  if (worst_ns < kMinCostNs || worst_ns < kMinStepShare * step_ns) return {};
  const RankTrace& t = set.ranks[worst];
  const double after_bw = f.measure(worst).gradient_comm_after_backward;
  // The GPU waiting for its CPU: idle whose next work had already been queued is not (it
  // waits for something else: trace.queued_idle).
  const double idle_share =
      step_ns > 0 ? static_cast<double>(m.idle_host_ns - m.idle_queued_ns) / step_ns : 0;
  const int64_t comm_total = m.comm_ns();

  Finding x = NewFinding("trace.exposed_comm");
  x.rank = t.rank;
  x.detail = StrFormat(
      "On rank %d (the rank that waits least for others), %.2f ms per step (%.1f%% of a "
      "%.2f ms step) of NCCL time runs with no compute beside it, not counting time spent "
      "waiting for other ranks; only %.0f%% of its %.2f ms of communication overlaps "
      "compute.",
      t.rank, static_cast<double>(worst_ns) / 1e6, 100.0 * worst_ns / step_ns, step_ns / 1e6,
      comm_total ? 100.0 * m.comm_overlapped_ns / comm_total : 0.0,
      static_cast<double>(comm_total) / 1e6);
  if (after_bw >= kAfterBackward) {
    x.severity = Severity::kWarning;
    x.title = "Communication starts only after backward: nothing overlaps it";
    x.detail += " " + std::to_string(static_cast<int>(after_bw * 100)) +
                "% of the gradient bytes are reduced after the last backward op.";
    x.fix =
        "Let DDP/FSDP reduce gradients during backward (bucket hooks) instead of all-reducing "
        "after loss.backward(); with gradient accumulation use model.no_sync() on all but the "
        "last micro-batch; avoid find_unused_parameters/static_graph settings that delay hooks.";
    x.confidence = 0.85;
  } else if (idle_share >= kLaunchBoundIdle) {
    x.severity = Severity::kInfo;
    x.title = "Communication is exposed because the GPU waits for the CPU anyway";
    x.detail += " The rank's GPU is idle waiting for launches " +
                std::to_string(static_cast<int>(idle_share * 100)) +
                "% of the step (trace.launch_bound): compute that could hide the collectives is "
                "not queued in time.";
    x.fix = "Fix the launch-bound CPU first (trace.launch_bound); the overlap follows.";
    x.confidence = 0.6;
  } else {
    x.severity = Severity::kWarning;
    x.title = "Communication is exposed: the GPU waits for it instead of computing";
    x.fix =
        "Overlap communication with compute: DDP bucket_cap_mb so the last bucket is small, "
        "FSDP prefetching (forward_prefetch, backward_prefetch), separate NCCL streams; see "
        "also trace.comm_serialized.";
    x.confidence = 0.7;
  }
  x.metrics = {
      {"exposed_comm_per_step", static_cast<double>(worst_ns), Unit::kNs},
      {"comm_per_step", static_cast<double>(comm_total), Unit::kNs},
      {"overlap_share", comm_total ? static_cast<double>(m.comm_overlapped_ns) / comm_total : 0,
       Unit::kRatio},
      {"step_time", step_ns, Unit::kNs}};
  if (after_bw >= 0) x.metrics.push_back({"gradient_bytes_after_backward", after_bw, Unit::kRatio});
  if (set.incomplete()) WaitingNotTakenOut(after_bw, x);
  x.refs.push_back({SourceLoc{t.file}, "rank " + std::to_string(t.rank) + " mean over " +
                                           std::to_string(m.step) + " steps"});
  x.saving_ns_per_step = static_cast<double>(worst_ns);
  return {x};
}

}  // namespace commdx::analysis
