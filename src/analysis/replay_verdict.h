// The verdict of a `commdx bench replay` run, per process group: is the job's communication
// slow because communication is slow on this fabric and NCCL setup (slow alone), or only inside
// the job (fast alone: overlap, stragglers, syncs, contention with compute)? Computed once
// (AnalysisInput::replay_verdicts) for the replay findings and the replay table alike.
// Thresholds and method: docs/replay.md.
#pragma once

#include <cstddef>
#include <vector>

#include "analysis/bench_expected.h"
#include "model/job.h"

namespace commdx::analysis {

enum class ReplayVerdictKind {
  kSlowInJob,    // the job's calls took >= kSlowInJobRatio x their replay
  kSlowAlone,    // as fast in the job as alone, and alone well below the link
  kAsAlone,      // as fast in the job as alone, and alone healthy or not judged
  kNoJobTiming,  // the input had no call times (NCCL COLL lines): alone only
};
const char* ReplayVerdictName(ReplayVerdictKind k);  // "slow_in_job", ...

// The job's calls must take this many times their replayed time to count as slow in the job,
inline constexpr double kSlowInJobRatio = 1.5;
// or, under that, when waiting for the last rank (measured in the job) is at least this share
// of the job's time and accounts for most of any excess over the replay: a straggler on a slow
// link adds less than 1.5x, and how much less depends on how fast the replay ran that day, but
// the wait is measured in the job itself. The capture nodes2_ddp_straggler (156.2 ms in the
// job, 48.8 of it waiting: 31%) replayed in 108.1 ms on 1xH200 and in 133.2 ms on 1xH100; its
// healthy twin waits 1.1 ms of 106.4 (1%).
inline constexpr double kWaitShareOfJob = 0.2;
inline constexpr double kWaitShareOfExcess = 0.5;
// Alone below this share of the link's line rate (bandwidth-bound shapes) is slow alone, as
// bench.low_busbw judges a sweep's plateau.
inline constexpr double kSlowAloneEfficiency = 0.5;
// What a healthy NCCL ring reaches on NVLink (docs/bench-method.md: 60-80% of the line rate):
// the time a slow-alone shape would take if it were healthy, for its saving.
inline constexpr double kHealthyEfficiency = 0.7;
// Shapes at least this large are bandwidth-bound: only they are judged against the link.
inline constexpr uint64_t kBandwidthBoundBytes = 1ull << 20;

struct ReplayVerdict {
  size_t result = 0;  // index into job.replay
  size_t group = 0;   // index into its groups
  ReplayVerdictKind kind = ReplayVerdictKind::kNoJobTiming;
  // kSlowInJob under kSlowInJobRatio: the measured wait for the last rank explains the excess.
  bool by_wait = false;
  const char* verdict = "";  // ReplayVerdictName(kind), for the report
  double ratio = 0;          // job sequence / replayed sequence; 0 when either is unknown
  // Alone, bandwidth-bound shapes together: sum(bytes x bus factor) / sum(time) against the
  // link's line rate (0 = not judged: no such shape, or the link is not known).
  double alone_busbw_gbps = 0;
  double alone_efficiency = 0;
  ExpectedLink link;
  // What the verdict says fixing it saves per replayed sequence (one step where the calls
  // carry steps): slow in job: job - replay; slow alone: replay - the same at
  // kHealthyEfficiency. 0 for the other kinds.
  double saving_us = 0;
  bool per_step = false;  // the sequence is one training step of the job
  // Slow in the job and slow alone too (both can hold: a straggler on a slow transport): the
  // slow-alone saving, beside the slow-in-job one.
  bool also_slow_alone = false;
  double slow_alone_saving_us = 0;
  // The replay's ranks reported one GPU (the same CUDA UUID): they took turns on it, so the
  // link is not judged (as bench.shared_gpu says for a sweep).
  bool shared_gpu = false;
  // The job's NCCL settings, measured: this result ran with them (settings_applied) and another
  // replay of the same job's files without them; settings_baseline_us is that replay's sequence
  // for this group. When the settings make it kSlowInJobRatio x slower, the verdict is
  // kSlowAlone by_settings, and the saving is the difference (at most the job's time).
  bool by_settings = false;
  double settings_baseline_us = 0;
  int settings_sibling = -1;  // index into job.replay of the other replay; -1 none
  // This result is the without-settings side of such a pair: its slow_in_job is the settings'.
  bool baseline_only = false;
};

std::vector<ReplayVerdict> JudgeReplays(const Job& job);

}  // namespace commdx::analysis
