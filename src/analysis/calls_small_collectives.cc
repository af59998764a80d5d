// comm.small_collectives: the small-collective advice of trace.small_collectives from NCCL COLL
// lines alone (no profiler trace). Per communicator rank, the gradient collectives (all_reduce,
// reduce_scatter, all_gather) counted by size: below 64 KiB, below the latency crossover, below
// the recommended bucket, at or above it. Without steps the thresholds of
// analysis/small_collectives.h apply to the whole log: at least kMinCallsPerStep calls,
// kExcessCalls times what buckets of the recommended size would need, median below the bucket,
// and most calls below the latency crossover (the link is unknown from COLL lines: NCCL's
// default crossover). A communicator of one rank moves nothing between GPUs and is left out.
#include "analysis/calls_small_collectives.h"

#include <algorithm>

#include "analysis/catalogue.h"
#include "analysis/small_collectives.h"
#include "analysis/trace_timeline.h"
#include "base/str_format.h"
#include "base/text.h"

namespace commdx::analysis {

CallSizeHistogram SizeHistogram(const NcclCallStream& s) {
  CallSizeHistogram h;
  const double crossover = small_coll::kDefaultCrossoverBytes;
  h.bucket_bytes = small_coll::RecommendedBucket(4 * crossover);
  std::vector<int64_t> sizes;
  for (const NcclCall& c : s.calls) {
    if (!small_coll::IsGradient(c.type) || c.bytes() == 0) continue;
    const double b = static_cast<double>(c.bytes());
    int bin = b < 65536                                       ? 0
              : b * BusBwFactor(c.type, s.nranks) < crossover ? 1
              : b < h.bucket_bytes                            ? 2
                                                              : 3;
    ++h.by_op[CollectiveTypeName(c.type)][bin];
    h.latency_bound += bin <= 1;
    h.bytes += b;
    sizes.push_back(static_cast<int64_t>(c.bytes()));
  }
  h.calls = sizes.size();
  h.median_bytes = static_cast<double>(Median(std::move(sizes)));
  return h;
}

namespace {

std::string HistogramText(const CallSizeHistogram& h) {
  std::string out;
  for (const auto& [op, bins] : h.by_op)
    out += StrFormat(
        "%s%s: %zu < 64 KiB, %zu below the crossover, %zu below the bucket, %zu at "
        "or above",
        out.empty() ? "" : "; ", op.c_str(), bins[0], bins[1], bins[2], bins[3]);
  return out;
}

}  // namespace

std::vector<Finding> FindCallSizes(const Job& job, const Options&) {
  // The stream with the most gradient calls speaks for the job, as in trace.small_collectives.
  const NcclCallStream* best = nullptr;
  CallSizeHistogram h;
  for (const NcclCallStream& s : job.nccl.call_streams) {
    if (s.nranks < 2) continue;
    CallSizeHistogram x = SizeHistogram(s);
    if (x.calls > h.calls) h = std::move(x), best = &s;
  }
  if (!best) return {};
  const double calls = static_cast<double>(h.calls);
  const double ideal = std::max(1.0, std::ceil(h.bytes / h.bucket_bytes));
  if (calls < small_coll::kMinCallsPerStep || calls < small_coll::kExcessCalls * ideal ||
      h.median_bytes >= h.bucket_bytes || 2 * h.latency_bound <= h.calls)
    return {};
  Finding f = NewFinding("comm.small_collectives");
  f.title = StrFormat(
      "Many small gradient collectives in the COLL lines: %zu calls where %.0f "
      "buckets of %s would do",
      h.calls, ideal, FormatBytes(h.bucket_bytes).c_str());
  f.detail = StrFormat(
      "%s of communicator %s (%d ranks): %zu gradient collectives move %s, median %s; %zu of "
      "them (%.0f%%) are below the size where bandwidth, not latency, dominates (%s of bus "
      "traffic, NCCL's default crossover: the link is unknown without a trace). By size: %s.",
      best->rank >= 0 ? StrFormat("rank %d", best->rank).c_str() : best->host.c_str(),
      best->comm_id.c_str(), best->nranks, h.calls, FormatBytes(h.bytes).c_str(),
      FormatBytes(h.median_bytes).c_str(), h.latency_bound, 100.0 * h.latency_bound / calls,
      FormatBytes(small_coll::kDefaultCrossoverBytes).c_str(), HistogramText(h).c_str());
  f.metrics = {{"gradient_collectives", calls, Unit::kCount},
               {"latency_bound_fraction", h.latency_bound / calls, Unit::kRatio},
               {"median_message", h.median_bytes, Unit::kBytes},
               {"recommended_bucket", h.bucket_bytes, Unit::kBytes}};
  f.refs.push_back({SourceLoc{best->file},
                    StrFormat("%zu COLL lines of %s", best->calls.size(), best->comm_id.c_str())});
  f.fix = StrFormat(
      "Fuse gradients into larger messages: DDP bucket_cap_mb=%.0f (or larger), FSDP wrap bigger "
      "units, or coalesce manual all-reduces into one buffer.",
      h.bucket_bytes / (1 << 20));
  for (const DdpInit& d : job.job_log.ddp)
    if (d.bucket_cap_bytes >= 0) {
      f.fix += StrFormat(" The job's DDP bucket cap was %s (%s:%u, rank %d).",
                         FormatBytes(static_cast<double>(d.bucket_cap_bytes)).c_str(),
                         d.loc.file.c_str(), d.loc.line, d.rank);
      break;
    }
  f.confidence = 0.6;  // no timing: the sizes say latency-bound, not how long it took
  return {f};
}

}  // namespace commdx::analysis
