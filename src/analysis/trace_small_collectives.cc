// trace.small_collectives: gradient collectives (all_reduce, reduce_scatter, all_gather) split
// into many messages smaller than the link needs to be efficient. Each call costs the link's
// latency plus the framework's per-call CPU work; fused buckets pay it fewer times.
//
// Efficient size: 4 x latency x peak busbw (80% of peak in the alpha-beta model), at least
// 25 MiB (DDP's default bucket). Fires when the calls per step are >= 1.5x what buckets of the
// recommended size need, there are >= 8 per step, and the median message is below that size.
// Cost per step: (calls - calls with buckets) x (link latency + median CPU time per call).
// Calls whose size the trace does not give are left out (and counted in the finding).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "analysis/catalogue.h"
#include "analysis/small_collectives.h"
#include "analysis/trace_findings.h"
#include "base/str_format.h"
#include "base/text.h"

namespace commdx::analysis {

namespace {

using small_coll::IsGradient;
using small_coll::kDefaultLatencyUs;
using small_coll::kExcessCalls;
using small_coll::kMinCallsPerStep;

}  // namespace

std::vector<Finding> FindSmallCollectives(const TraceSet& set, const TraceFacts& f,
                                          const Options&) {
  // The rank with the most launched gradient collectives speaks for the job.
  int best = -1;
  size_t best_n = 0;
  for (size_t i = 0; i < set.ranks.size(); ++i) {
    size_t n = 0;
    for (const Collective& c : set.ranks[i].collectives) n += c.launched && IsGradient(c.type);
    if (n > best_n) best_n = n, best = static_cast<int>(i);
  }
  if (best < 0) return {};
  const RankTrace& t = set.ranks[best];
  const double nsteps = static_cast<double>(std::max<size_t>(1, t.steps.size()));
  std::vector<int64_t> sizes;
  size_t unknown = 0;  // calls whose size the trace does not give: no advice on them
  double bytes = 0, latency_bound_ns = 0, comm_ns = 0;
  const double latency_us = f.link.known() ? f.link.latency_us : kDefaultLatencyUs;
  const double crossover = f.link.known() ? latency_us * 1e-6 * f.link.peak_busbw_gbps * 1e9
                                          : small_coll::kDefaultCrossoverBytes;
  for (const Collective& c : t.collectives) {
    if (!c.launched || !IsGradient(c.type)) continue;
    if (c.bytes == 0) {
      ++unknown;
      continue;
    }
    sizes.push_back(static_cast<int64_t>(c.bytes));
    bytes += static_cast<double>(c.bytes);
    double d = static_cast<double>(c.end_ns - c.start_ns);
    comm_ns += d;
    if (static_cast<double>(c.bytes) * BusBwFactor(c.type, c.group_size) < crossover)
      latency_bound_ns += d;
  }
  const double calls = static_cast<double>(sizes.size()) / nsteps;
  const double bytes_per_step = bytes / nsteps;
  const double efficient = f.link.known() ? f.link.EfficientBusBytes() : 4 * crossover;
  const double bucket = small_coll::RecommendedBucket(efficient);
  const double ideal_calls = std::max(1.0, std::ceil(bytes_per_step / bucket));
  const double median = static_cast<double>(Median(sizes));
  if (calls < kMinCallsPerStep || calls < kExcessCalls * ideal_calls || median >= bucket) return {};

  const double per_call_ns =
      latency_us * 1e3 + static_cast<double>(f.measure(best).median_call_cpu_ns);
  const double cost = (calls - ideal_calls) * per_call_ns;
  Finding x = NewFinding("trace.small_collectives");
  x.title =
      "Many small gradient collectives: " + std::to_string(static_cast<int>(std::lround(calls))) +
      " per step where " + std::to_string(static_cast<int>(ideal_calls)) + " buckets would do";
  x.detail = StrFormat(
      "%.1f gradient collectives per step move %s; median message %s, below the %s this "
      "link needs to reach 80%% of its bandwidth. %.0f%% of their GPU time is in messages "
      "below the latency crossover (%s). Each call costs about %.0f µs of link latency and "
      "PyTorch CPU work.",
      calls, FormatBytes(bytes_per_step).c_str(), FormatBytes(median).c_str(),
      FormatBytes(efficient).c_str(), comm_ns > 0 ? 100.0 * latency_bound_ns / comm_ns : 0.0,
      FormatBytes(crossover).c_str(), per_call_ns / 1e3);
  if (unknown > 0)
    x.detail += " " + std::to_string(unknown) +
                " more gradient collectives of unknown size (the trace gives no element count or "
                "dtype) are left out.";
  x.metrics = {
      {"collectives_per_step", calls, Unit::kCount},
      {"median_message", median, Unit::kBytes},
      {"bytes_per_step", bytes_per_step, Unit::kBytes},
      {"latency_bound_fraction", comm_ns > 0 ? latency_bound_ns / comm_ns : 0, Unit::kRatio},
      {"recommended_bucket", bucket, Unit::kBytes},
      {"per_call_overhead", per_call_ns, Unit::kNs},
      {"collectives_of_unknown_size", static_cast<double>(unknown), Unit::kCount}};
  x.refs.push_back({SourceLoc{t.file}, "rank " + std::to_string(t.rank) + ": " +
                                           std::to_string(sizes.size()) +
                                           " gradient collectives in " +
                                           std::to_string(static_cast<int>(nsteps)) + " steps"});
  std::string fix = StrFormat(
      "Fuse gradients into larger messages: DDP bucket_cap_mb=%.0f (or larger), FSDP "
      "wrap bigger units, or coalesce manual all-reduces (torch.distributed "
      "all_reduce_coalesced / flatten into one buffer).",
      bucket / (1 << 20));
  if (f.ddp_bucket_cap_bytes >= 0)
    fix += StrFormat(" The job's DDP bucket cap was %s (bucket_cap_mb=%g, %s).",
                     FormatBytes(static_cast<double>(f.ddp_bucket_cap_bytes)).c_str(),
                     static_cast<double>(f.ddp_bucket_cap_bytes) / (1 << 20), f.ddp_source.c_str());
  x.fix = fix;
  x.saving_ns_per_step = cost;
  x.confidence = 0.75;
  return {x};
}

}  // namespace commdx::analysis
