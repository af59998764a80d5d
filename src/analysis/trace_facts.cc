#include "analysis/trace_facts.h"

#include "base/parallel.h"

namespace commdx::analysis {

TraceFacts ComputeTraceFacts(const Job& job, int threads) {
  const TraceSet& set = job.trace;
  const size_t n = set.ranks.size();
  TraceFacts f;
  // Per rank on the workers; the cross-rank match between the two per-rank passes.
  f.digests.resize(n);
  ParallelFor(n, threads, [&](size_t i) { f.digests[i] = DigestOf(set.ranks[i]); });
  f.cross = MatchAcrossRanks(set);
  std::vector<std::vector<StepBreakdown>> steps(n);
  f.rank_means.resize(n);
  ParallelFor(n, threads, [&](size_t i) {
    steps[i] = RankStepBreakdown(set, i, f.timeline(i), f.measure(i).orphan_starts, f.cross);
    f.rank_means[i] = MeanOfRank(steps[i], static_cast<int>(i));
  });
  size_t total = 0;
  for (const auto& s : steps) total += s.size();
  f.steps.reserve(total);
  for (auto& s : steps) f.steps.insert(f.steps.end(), s.begin(), s.end());
  f.link = ExpectLink(set);
  f.bandwidth = MeasureBandwidth(set, f.cross, f.link);
  for (const DdpInit& d : job.job_log.ddp) {
    if (d.bucket_cap_bytes < 0 || (f.ddp_bucket_cap_bytes >= 0 && d.rank != 0)) continue;
    f.ddp_bucket_cap_bytes = d.bucket_cap_bytes;
    f.ddp_source =
        d.loc.file + ":" + std::to_string(d.loc.line) + " (rank " + std::to_string(d.rank) + ")";
  }
  return f;
}

double MeanStepNs(const TraceFacts& facts) {
  double total = 0;
  int n = 0;
  for (const auto& m : facts.rank_means) {
    if (m.step == 0) continue;
    total += static_cast<double>(m.total_ns());
    ++n;
  }
  return n ? total / n : 0;
}

}  // namespace commdx::analysis
