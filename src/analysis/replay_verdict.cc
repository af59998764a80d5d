#include "analysis/replay_verdict.h"

#include <algorithm>

namespace commdx::analysis {

const char* ReplayVerdictName(ReplayVerdictKind k) {
  switch (k) {
    case ReplayVerdictKind::kSlowInJob:
      return "slow_in_job";
    case ReplayVerdictKind::kSlowAlone:
      return "slow_alone";
    case ReplayVerdictKind::kAsAlone:
      return "as_alone";
    case ReplayVerdictKind::kNoJobTiming:
      return "no_job_timing";
  }
  return "";
}

namespace {

// Bandwidth-bound shapes, weighted by how often the sequence runs them: the bus bytes they move
// over the time they take alone.
void JudgeAlone(const ReplayGroupResult& g, int nranks, ReplayVerdict& v) {
  double bus_bytes = 0, ns = 0;
  for (const ReplayShape& s : g.shapes) {
    if (s.bytes < kBandwidthBoundBytes || !s.alone.valid || s.alone.time_us <= 0) continue;
    double calls = std::max(1, s.job_calls);
    bus_bytes += calls * static_cast<double>(s.bytes) * BusBwFactor(s.type, nranks);
    ns += calls * s.alone.time_us * 1e3;
  }
  if (ns <= 0 || bus_bytes <= 0) return;
  v.alone_busbw_gbps = bus_bytes / ns;  // B/ns = GB/s
  if (v.link.known && v.link.line_rate_gbps > 0)
    v.alone_efficiency = v.alone_busbw_gbps / v.link.line_rate_gbps;
}

ReplayVerdict Judge(const ReplayResult& r, const ReplayGroupResult& g) {
  ReplayVerdict v;
  v.link = ExpectedForBench(r.topology);
  v.per_step = g.steps > 0;
  JudgeAlone(g, g.replay_ranks > 0 ? g.replay_ranks : r.nranks, v);
  const bool timed = g.job_sequence_us > 0 && g.replay_sequence_us > 0;
  if (timed) v.ratio = g.job_sequence_us / g.replay_sequence_us;
  const bool slow_alone = v.alone_efficiency > 0 && v.alone_efficiency < kSlowAloneEfficiency;
  if (slow_alone) {
    v.slow_alone_saving_us = g.replay_sequence_us * (1 - v.alone_efficiency / kHealthyEfficiency);
    // Fixing the setup cannot save the job more than its communication took.
    if (timed) v.slow_alone_saving_us = std::min(v.slow_alone_saving_us, g.job_sequence_us);
  }
  if (timed && v.ratio >= kSlowInJobRatio) {
    v.kind = ReplayVerdictKind::kSlowInJob;
    v.saving_us = g.job_sequence_us - g.replay_sequence_us;
    v.also_slow_alone = slow_alone;
  } else if (slow_alone) {
    v.kind = ReplayVerdictKind::kSlowAlone;
    v.saving_us = v.slow_alone_saving_us;
  } else {
    v.kind = timed ? ReplayVerdictKind::kAsAlone : ReplayVerdictKind::kNoJobTiming;
  }
  return v;
}

}  // namespace

std::vector<ReplayVerdict> JudgeReplays(const Job& job) {
  std::vector<ReplayVerdict> out;
  for (size_t i = 0; i < job.replay.size(); ++i)
    for (size_t k = 0; k < job.replay[i].groups.size(); ++k) {
      ReplayVerdict v = Judge(job.replay[i], job.replay[i].groups[k]);
      v.result = i;
      v.group = k;
      v.verdict = ReplayVerdictName(v.kind);
      out.push_back(v);
    }
  return out;
}

}  // namespace commdx::analysis
