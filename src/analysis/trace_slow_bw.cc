// trace.slow_collective_bw: collectives whose transfer (waiting excluded) achieves well under the
// bus bandwidth the link should give at their size. Uses messages >= 1 MiB (below that latency
// dominates); fires when their median achieved/expected ratio is < 0.5. Cost per step: the extra
// transfer time over what the link should take, at most the exposed communication. With ranks
// missing (one rank's trace of many) kernel times include waiting: an info with no cost, stated
// as a lower bound.
#include <algorithm>
#include <cstdio>
#include <map>

#include "analysis/catalogue.h"
#include "analysis/trace_findings.h"
#include "base/str_format.h"
#include "base/text.h"

namespace commdx::analysis {

namespace {

constexpr double kMinBytes = 1 << 20;
constexpr double kSlowRatio = 0.5;
constexpr size_t kMinInstances = 3;

// With ranks missing the kernel times include waiting for them: the bandwidth is a lower bound,
// stated as one, and neither an error nor a cost.
void LowerBoundOnly(const TraceSet& set, double median, Finding& x) {
  x.severity = Severity::kInfo;
  std::string title = StrFormat(
      "NCCL kernels reach %.0f%% or more of the link's bandwidth (ranks are missing: a "
      "lower bound)",
      100 * median);
  x.title = title;
  const std::string old = "timed without the wait for late ranks";
  if (auto at = x.detail.find(old); at != std::string::npos)
    x.detail.replace(at, old.size(), "timed as whole kernels");
  std::string missing = set.missing_ranks.empty()
                            ? "some ranks"
                            : std::to_string(set.missing_ranks.size()) + " of " +
                                  std::to_string(set.world_size) + " ranks";
  x.detail += " The traces of " + missing +
              " are missing, so these kernel times include waiting for them: the transfer is at "
              "least this fast, and how much faster is not known.";
  x.saving_ns_per_step.reset();
  x.confidence = 0.3;
}

}  // namespace

std::vector<Finding> FindSlowCollectiveBw(const TraceSet& set, const TraceFacts& f,
                                          const Options&) {
  if (!f.link.known()) return {};
  std::vector<double> ratios;
  std::vector<int64_t> channels;
  double excess_ns = 0, best_busbw = 0, expected_at_best = 0;
  uint64_t largest = 0;
  for (const CollectiveBw& b : f.bandwidth) {
    if (b.bytes < kMinBytes || b.expected_busbw_gbps <= 0 || b.busbw_gbps <= 0) continue;
    // Without a cross-rank match the kernel time includes waiting: only a lower bound. With
    // ranks missing that is all there is; it is said so below.
    if (!b.transfer_only && set.ranks.size() > 1 && !set.incomplete()) continue;
    ratios.push_back(b.busbw_gbps / b.expected_busbw_gbps);
    channels.push_back(b.channels);
    double expected_ns = static_cast<double>(b.time_ns) * b.busbw_gbps / b.expected_busbw_gbps;
    excess_ns += std::max(0.0, static_cast<double>(b.time_ns) - expected_ns);
    if (b.bytes >= largest) {
      largest = b.bytes;
      best_busbw = std::max(best_busbw, b.busbw_gbps);
      expected_at_best = b.expected_busbw_gbps;
    }
  }
  if (ratios.size() < kMinInstances) return {};
  std::vector<double> sorted = ratios;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted[sorted.size() / 2];
  if (median >= kSlowRatio) return {};
  size_t steps = 1;
  int64_t exposed = 0;
  for (size_t i = 0; i < f.rank_means.size(); ++i) {
    steps = std::max(steps, set.ranks[i].steps.size());
    exposed =
        std::max(exposed, f.rank_means[i].comm_exposed_ns - f.rank_means[i].comm_exposed_wait_ns);
  }
  const double per_step =
      std::min(excess_ns / static_cast<double>(steps), static_cast<double>(exposed));
  Finding x = NewFinding("trace.slow_collective_bw");
  x.severity = median < 0.2 ? Severity::kError : Severity::kWarning;
  std::string title =
      StrFormat("Collectives reach %.0f%% of the bandwidth the link should give", 100 * median);
  x.title = title;
  std::string buf = StrFormat(
      "%zu collectives of 1 MiB or more, timed without the wait for late ranks, reach a "
      "median %.0f%% of the expected bus bandwidth for their size on %s. Largest (%s): "
      "%.1f GB/s against %.1f GB/s expected. NCCL ran them on a median of %lld channels.",
      ratios.size(), 100 * median, f.link.what.c_str(),
      FormatBytes(static_cast<double>(largest)).c_str(), best_busbw, expected_at_best,
      static_cast<long long>(Median(channels)));
  x.detail = buf;
  x.metrics = {{"median_efficiency", median, Unit::kRatio},
               {"busbw_largest", best_busbw, Unit::kGBps},
               {"expected_busbw_largest", expected_at_best, Unit::kGBps},
               {"channels", static_cast<double>(Median(channels)), Unit::kCount},
               {"extra_transfer_per_step", excess_ns / static_cast<double>(steps), Unit::kNs}};
  x.refs.push_back({SourceLoc{set.ranks[0].file}, std::to_string(ratios.size()) + " instances"});
  x.fix =
      "Find why NCCL is slow on this link: check the transport (commdx logs: P2P/SHM/NET, "
      "NCCL_P2P_DISABLE, NCCL_SHM_DISABLE, socket fallback), the channel count "
      "(NCCL_MAX_NCHANNELS), and benchmark the link alone (commdx bench all_reduce).";
  x.saving_ns_per_step = std::max(0.0, per_step);
  x.confidence = 0.8;
  if (set.incomplete()) LowerBoundOnly(set, median, x);
  return {x};
}

}  // namespace commdx::analysis
