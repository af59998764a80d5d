#include "analysis/replay_verdict.h"

#include <algorithm>
#include <string>

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
  v.shared_gpu = AnyGpuShared(r.rank_gpus);
  if (v.shared_gpu) {
    v.link = ExpectedLink{};
    v.link.basis = "not judged: the replay's ranks share one GPU (same CUDA UUID), so its times "
                   "are time slices, not a link";
  }
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
  const double excess = timed ? g.job_sequence_us - g.replay_sequence_us : 0;
  v.by_wait = timed && v.ratio < kSlowInJobRatio &&
              g.job_wait_sequence_us >= kWaitShareOfJob * g.job_sequence_us &&
              g.job_wait_sequence_us >= kWaitShareOfExcess * excess;
  if (timed && (v.ratio >= kSlowInJobRatio || v.by_wait)) {
    v.kind = ReplayVerdictKind::kSlowInJob;
    // What the job would save: its excess over the replay, or the wait it measured where that
    // is larger (a replay that ran slow that day hides part of the excess, not the wait).
    v.saving_us = std::max(excess, v.by_wait ? g.job_wait_sequence_us : 0.0);
    v.also_slow_alone = slow_alone;
  } else if (slow_alone) {
    v.kind = ReplayVerdictKind::kSlowAlone;
    v.saving_us = v.slow_alone_saving_us;
  } else {
    v.kind = timed ? ReplayVerdictKind::kAsAlone : ReplayVerdictKind::kNoJobTiming;
  }
  return v;
}

// The replay of the same job's files that ran without every setting `with` ran with: -1 none.
int WithoutSettings(const Job& job, size_t with) {
  const ReplayResult& a = job.replay[with];
  if (a.settings_applied.empty()) return -1;
  for (size_t j = 0; j < job.replay.size(); ++j) {
    const ReplayResult& b = job.replay[j];
    if (j == with || b.files != a.files) continue;
    bool all = true;
    for (const std::string& kv : a.settings_applied)
      all = all && std::find(b.settings_left_out.begin(), b.settings_left_out.end(), kv) !=
                       b.settings_left_out.end();
    if (all) return static_cast<int>(j);
  }
  return -1;
}

const ReplayGroupResult* GroupNamed(const ReplayResult& r, const std::string& name) {
  for (const ReplayGroupResult& g : r.groups)
    if (g.name == name) return &g;
  return nullptr;
}

// The settings' own cost, where a replay without them measured the same group.
void JudgeSettings(const ReplayGroupResult& with, const ReplayGroupResult& without,
                   ReplayVerdict& v) {
  if (without.replay_sequence_us <= 0 || with.replay_sequence_us <= 0) return;
  v.settings_baseline_us = without.replay_sequence_us;
  if (with.replay_sequence_us < kSlowInJobRatio * without.replay_sequence_us) return;
  if (v.kind == ReplayVerdictKind::kSlowInJob) {
    v.also_slow_alone = true;
    v.slow_alone_saving_us = with.replay_sequence_us - without.replay_sequence_us;
    v.by_settings = true;
    return;
  }
  v.kind = ReplayVerdictKind::kSlowAlone;
  v.by_settings = true;
  v.saving_us = with.replay_sequence_us - without.replay_sequence_us;
  if (with.job_sequence_us > 0) v.saving_us = std::min(v.saving_us, with.job_sequence_us);
  v.slow_alone_saving_us = v.saving_us;
}

}  // namespace

std::vector<ReplayVerdict> JudgeReplays(const Job& job) {
  std::vector<ReplayVerdict> out;
  std::vector<int> sibling(job.replay.size(), -1);
  for (size_t i = 0; i < job.replay.size(); ++i) sibling[i] = WithoutSettings(job, i);
  for (size_t i = 0; i < job.replay.size(); ++i)
    for (size_t k = 0; k < job.replay[i].groups.size(); ++k) {
      const ReplayGroupResult& g = job.replay[i].groups[k];
      ReplayVerdict v = Judge(job.replay[i], g);
      v.result = i;
      v.group = k;
      if (sibling[i] >= 0) {
        v.settings_sibling = sibling[i];
        if (const ReplayGroupResult* b = GroupNamed(job.replay[sibling[i]], g.name))
          JudgeSettings(g, *b, v);
      }
      for (size_t j = 0; j < sibling.size(); ++j)
        if (sibling[j] == static_cast<int>(i)) {
          v.settings_sibling = static_cast<int>(j);
          v.baseline_only = true;
        }
      v.verdict = ReplayVerdictName(v.kind);
      out.push_back(v);
    }
  return out;
}

}  // namespace commdx::analysis
