#include "analysis/trace_facts.h"

namespace commdx::analysis {

TraceFacts ComputeTraceFacts(const Job& job) {
  const TraceSet& set = job.trace;
  TraceFacts f;
  f.timelines.reserve(set.ranks.size());
  for (const RankTrace& t : set.ranks) f.timelines.push_back(BuildTimeline(t));
  f.cross = MatchAcrossRanks(set);
  f.steps = ComputeStepBreakdown(set, f.timelines, f.cross);
  for (size_t i = 0; i < set.ranks.size(); ++i)
    f.rank_means.push_back(MeanOfRank(f.steps, static_cast<int>(i)));
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
