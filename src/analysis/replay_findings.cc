// Findings from `commdx bench replay` runs: the verdict per replayed process group
// (replay_verdict.h), priced per step where the replayed sequence is one step of the job.
#include "analysis/bench_analyzers.h"
#include "analysis/catalogue.h"
#include "analysis/replay_verdict.h"
#include "base/str_format.h"
#include "base/text.h"

namespace commdx::analysis {

namespace {

std::string Ms(double us) { return FormatFixed(us / 1e3, 2) + " ms"; }

std::string SettingsList(const std::vector<std::string>& kvs) {
  std::string s;
  for (const std::string& kv : kvs) s += (s.empty() ? "" : ", ") + kv;
  return s;
}

std::string GroupName(const ReplayGroupResult& g) {
  return "group " + g.name + (g.desc.empty() ? "" : " (" + g.desc + ")");
}

EvidenceRef ReplayRef(const ReplayResult& r, const ReplayGroupResult& g) {
  std::string what = GroupName(g) + ": " + std::to_string(g.sequence_calls) + " calls";
  what += g.steps > 0 ? " of one step" : " in issue order";
  if (g.job_sequence_us > 0) what += ", " + Ms(g.job_sequence_us) + " in the job";
  what += ", " + Ms(g.replay_sequence_us) + " replayed on " + std::to_string(g.replay_ranks) +
          " ranks (NCCL " + r.nccl_version + ")";
  return {{r.file.empty() ? "commdx bench replay" : r.file}, what};
}

// "The 33 calls of one step" / "The 120 calls replayed"
std::string CallsWord(const ReplayGroupResult& g) {
  return "The " + std::to_string(g.sequence_calls) + " calls" +
         (g.steps > 0 ? " of one step" : " replayed");
}

void Price(Finding& f, const ReplayVerdict& v, const ReplayGroupResult& g, double saving_us) {
  f.metrics.push_back({"job_sequence", g.job_sequence_us * 1e3, Unit::kNs});
  f.metrics.push_back({"replay_sequence", g.replay_sequence_us * 1e3, Unit::kNs});
  if (v.ratio > 0) f.metrics.push_back({"job_over_replay", v.ratio, Unit::kRatio});
  if (v.alone_busbw_gbps > 0) f.metrics.push_back({"alone_busbw", v.alone_busbw_gbps, Unit::kGBps});
  if (v.alone_efficiency > 0)
    f.metrics.push_back({"alone_efficiency", 100 * v.alone_efficiency, Unit::kPercent});
  // A saving per step only where the sequence is one step; the step itself is not known here.
  if (v.per_step && saving_us > 0) f.saving_ns_per_step = saving_us * 1e3;
}

Finding SlowInJob(const ReplayResult& r, const ReplayGroupResult& g, const ReplayVerdict& v) {
  Finding f = NewFinding("replay.slow_in_job");
  // Under 1.5x only when a late rank's wait accounts for the job's time (ReplayVerdict::by_wait).
  f.title = GroupName(g) + ": collectives take " + FormatFixed(v.ratio, 1) +
            "x as long in the job as replayed alone" +
            (v.by_wait ? ", most of it waiting for a late rank" : "");
  f.detail = CallsWord(g) + " took " + Ms(g.job_sequence_us) + " in the job and " +
             Ms(g.replay_sequence_us) + " replayed back to back with NCCL on " +
             std::to_string(g.replay_ranks) + " ranks.";
  if (g.job_wait_sequence_us >= 0)
    f.detail += " Of the job's time, " + Ms(g.job_wait_sequence_us) +
                " was waiting for the last rank to arrive.";
  if (v.by_wait)
    f.detail += " Less than 1.5x, but that wait is " +
                std::to_string(static_cast<int>(
                    100 * g.job_wait_sequence_us / std::max(g.job_sequence_us, 1e-9) + 0.5)) +
                "% of the job's time and accounts for any difference: a rank arrives late.";
  f.detail +=
      " The communication itself is fast here: the extra time comes from the training loop — "
      "ranks arriving late (stragglers, data loading, host syncs), communication kernels "
      "competing with compute for SMs and memory bandwidth, or collectives queued behind "
      "compute. The trace findings say which.";
  f.fix =
      "Look at the trace findings (arrival skew, exposed communication, data stalls, host "
      "syncs) rather than NCCL settings; profile the job with every rank's trace if only one "
      "was read.";
  if (!r.settings_left_out.empty()) {
    f.detail += " But the job ran with NCCL settings this replay left out (" +
                SettingsList(r.settings_left_out) +
                "): they may be the difference instead of the training loop.";
    f.fix = "Replay with the job's settings too (without --no-job-settings) and pass both "
            "replays to `commdx diagnose`: the difference is what the settings cost. " +
            f.fix;
    f.confidence = 0.5;
  }
  Price(f, v, g, v.saving_us);
  f.refs.push_back(ReplayRef(r, g));
  return f;
}

// Slow alone because of the job's own NCCL settings: measured by a replay without them.
Finding SlowBySettings(const Job& job, const ReplayResult& r, const ReplayGroupResult& g,
                       const ReplayVerdict& v) {
  Finding f = NewFinding("replay.slow_alone");
  const double factor = g.replay_sequence_us / v.settings_baseline_us;
  f.title = GroupName(g) + ": the job's NCCL settings " + SettingsList(r.settings_applied) +
            " make its collectives " + FormatFixed(factor, 1) + "x slower alone (" +
            Ms(g.replay_sequence_us) + " with them, " + Ms(v.settings_baseline_us) + " without)";
  f.detail = CallsWord(g) + " replayed with NCCL on " + std::to_string(g.replay_ranks) +
             " ranks took " + Ms(g.replay_sequence_us) + " with the settings the job ran with, and " +
             Ms(v.settings_baseline_us) + " without them";
  const ReplayResult& other = job.replay[static_cast<size_t>(v.settings_sibling)];
  if (!other.file.empty()) f.detail += " (" + other.file + ")";
  f.detail += ", on the same ranks and library.";
  if (g.job_sequence_us > 0)
    f.detail += " The job took " + Ms(g.job_sequence_us) + ": " +
                (v.ratio < kSlowInJobRatio ? "what the settings give alone, so they are what "
                                             "slows its communication."
                                           : "more again (replay.slow_in_job).");
  f.fix = "Remove " + SettingsList(r.settings_applied) +
          " from the job's environment (or set them to NCCL's defaults) unless they were set "
          "for a reason that still holds; rerun the replay with and without them after any "
          "change.";
  Price(f, v, g, v.slow_alone_saving_us);
  f.refs.push_back(ReplayRef(r, g));
  for (const ReplayGroupResult& og : other.groups)
    if (og.name == g.name) f.refs.push_back(ReplayRef(other, og));
  f.confidence = 0.9;
  return f;
}

Finding SlowAlone(const ReplayResult& r, const ReplayGroupResult& g, const ReplayVerdict& v) {
  Finding f = NewFinding("replay.slow_alone");
  f.title = GroupName(g) + ": replayed alone, its collectives reach " +
            FormatFixed(v.alone_busbw_gbps, 1) + " GB/s, " +
            FormatFixed(100 * v.alone_efficiency, 0) + "% of the link's " +
            FormatFixed(v.link.line_rate_gbps, 0) + " GB/s";
  f.detail = "The job's own calls of 1 MiB or more, replayed with NCCL alone on the fabric, move " +
             FormatFixed(v.alone_busbw_gbps, 1) + " GB/s of bus bandwidth; the link is " +
             v.link.basis + ".";
  if (v.ratio > 0 && v.ratio < 1 / kSlowInJobRatio)
    f.detail += " In the job they took only " + FormatFixed(v.ratio, 2) +
                "x their replayed time: the replay ran on other hardware or with other NCCL "
                "settings than the job (compare the environments); the saving is bounded by "
                "the job's own communication time.";
  else if (v.ratio > 0 && v.ratio < kSlowInJobRatio)
    f.detail += " In the job they took " + FormatFixed(v.ratio, 2) +
                "x their replayed time: the job is not what slows them.";
  else if (v.ratio > 0)
    f.detail += " The job adds more on top: they took " + FormatFixed(v.ratio, 2) +
                "x their replayed time in it (replay.slow_in_job).";
  f.detail +=
      " Communication is slow before any training code runs: the transport NCCL picked, its "
      "settings, or the links. The NCCL log, environment and topology findings say which.";
  f.fix =
      "Check the transport and channels NCCL chose (NCCL_DEBUG=INFO), NCCL_* settings that "
      "restrict them (NCCL_P2P_DISABLE, NCCL_MAX_NCHANNELS, NCCL_ALGO/NCCL_PROTO), and "
      "`commdx topo` for inactive NVLinks; rerun the replay after each change.";
  f.confidence = v.link.confidence;
  Price(f, v, g, v.slow_alone_saving_us);
  f.refs.push_back(ReplayRef(r, g));
  return f;
}

Finding AsAlone(const ReplayResult& r, const ReplayGroupResult& g, const ReplayVerdict& v) {
  Finding f = NewFinding("replay.as_alone");
  if (v.kind == ReplayVerdictKind::kAsAlone) {
    f.title = GroupName(g) + ": collectives take " + FormatFixed(v.ratio, 2) +
              "x as long in the job as replayed alone: " +
              (v.ratio <= 1.1 ? "as fast as alone" : "under the 1.5x that marks a slow job");
    f.detail = CallsWord(g) + " took " + Ms(g.job_sequence_us) + " in the job and " +
               Ms(g.replay_sequence_us) + " replayed alone: what they cost in the job is what " +
               "this NCCL setup and fabric give.";
  } else {
    f.title =
        GroupName(g) + ": the job's collectives replayed alone in " + Ms(g.replay_sequence_us);
    f.detail =
        "The input holds no time for the job's calls (NCCL COLL lines), so only the "
        "replay is measured.";
  }
  if (v.alone_efficiency > 0)
    f.detail += " Alone they reach " + FormatFixed(100 * v.alone_efficiency, 0) +
                "% of the link's line rate.";
  Price(f, v, g, 0);
  f.refs.push_back(ReplayRef(r, g));
  return f;
}

}  // namespace

std::vector<Finding> FindReplayVerdicts(const AnalysisInput& input, const Options&) {
  std::vector<Finding> out;
  const Job& job = input.job();
  for (const ReplayVerdict& v : input.replay_verdicts()) {
    const ReplayResult& r = job.replay[v.result];
    const ReplayGroupResult& g = r.groups[v.group];
    // The without-settings side of a pair: its numbers are in the settings finding.
    if (v.baseline_only) continue;
    switch (v.kind) {
      case ReplayVerdictKind::kSlowInJob:
        out.push_back(SlowInJob(r, g, v));
        if (v.also_slow_alone)
          out.push_back(v.by_settings ? SlowBySettings(job, r, g, v) : SlowAlone(r, g, v));
        break;
      case ReplayVerdictKind::kSlowAlone:
        out.push_back(v.by_settings ? SlowBySettings(job, r, g, v) : SlowAlone(r, g, v));
        break;
      default:
        out.push_back(AsAlone(r, g, v));
        break;
    }
  }
  return out;
}

}  // namespace commdx::analysis
