// The verdicts on real `commdx bench replay` snapshots of the 1xH200 machine and, for the same
// captures replayed another day, of a 1xH100 one (tests/data/replay_h200, replay_h100, their
// README.md): two healthy captures replay as fast as they ran, the straggler is slow in the job
// by its measured wait on both machines, and the run slowed by NCCL_MAX_NCHANNELS=1
// NCCL_BUFFSIZE=65536 is slow alone by those settings once its replay without them is given.
#include <gtest/gtest.h>

#include "analysis/analysis_input.h"
#include "analysis/bench_analyzers.h"
#include "analysis/replay_verdict.h"
#include "ingest/load_inputs.h"

namespace commdx::analysis {
namespace {

const std::string kH200 = std::string(COMMDX_SOURCE_DIR) + "/tests/data/replay_h200/";
const std::string kH100 = std::string(COMMDX_SOURCE_DIR) + "/tests/data/replay_h100/";

Job Load(const std::vector<std::string>& names, const std::string& dir = kH200) {
  std::vector<std::string> paths;
  for (const auto& n : names) paths.push_back(dir + n + ".replay.json");
  auto job = ingest::LoadInputs(paths, {});
  EXPECT_TRUE(job) << (job ? "" : job.error().ToString());
  return job ? std::move(job).value() : Job{};
}

ReplayVerdict Only(const std::string& name, const std::string& dir = kH200) {
  Job job = Load({name}, dir);
  auto v = JudgeReplays(job);
  EXPECT_EQ(v.size(), 1u) << name;
  return v.empty() ? ReplayVerdict{} : v[0];
}

TEST(ReplayH200, HealthyCapturesRunAsAlone) {
  for (const char* name : {"nodes2_ddp_healthy", "nodes2_ddp_healthy_twin_sched"}) {
    ReplayVerdict v = Only(name);
    EXPECT_EQ(v.kind, ReplayVerdictKind::kAsAlone) << name;
    EXPECT_TRUE(v.shared_gpu) << name;  // two ranks, one UUID: the link is not judged
    EXPECT_LT(v.ratio, 1.0) << name;
  }
}

TEST(ReplayH200, StragglerIsSlowInTheJobByItsWait) {
  ReplayVerdict v = Only("nodes2_ddp_straggler");
  EXPECT_EQ(v.kind, ReplayVerdictKind::kSlowInJob);
  EXPECT_TRUE(v.by_wait);
  EXPECT_NEAR(v.ratio, 1.44, 0.01);
  // The wait it measured (48.8 ms) is a little more than its excess over the replay (48.1 ms).
  EXPECT_NEAR(v.saving_us, 48841.107, 1);
}

// The same job replayed on another machine another day: the replay ran 23% slower, so the
// job/replay ratio is 1.17, but the wait the job measured is the same 31% of its time.
TEST(ReplayH100, StragglerIsStillSlowInTheJobByItsWait) {
  ReplayVerdict v = Only("nodes2_ddp_straggler", kH100);
  EXPECT_EQ(v.kind, ReplayVerdictKind::kSlowInJob);
  EXPECT_TRUE(v.by_wait);
  EXPECT_NEAR(v.ratio, 1.17, 0.01);
  EXPECT_NEAR(v.saving_us, 48841.107, 1);  // the wait, not the 23.0 ms excess
}

TEST(ReplayH100, HealthyCapturesAndTheSlowedOneRunAsAlone) {
  for (const char* name : {"nodes2_ddp_healthy", "nodes2_ddp_healthy_twin_sched",
                           "nodes2_ddp_few_channels_buffsize_sched"}) {
    ReplayVerdict v = Only(name, kH100);
    EXPECT_EQ(v.kind, ReplayVerdictKind::kAsAlone) << name;
    EXPECT_FALSE(v.by_wait) << name;
  }
}

// Both replays of the slowed run together, from one machine's folder: slow alone by the
// settings, the replay without them raising nothing of its own.
void ExpectSlowAloneBySettings(const std::string& dir) {
  Job job = Load({"nodes2_ddp_few_channels_buffsize_sched",
                  "nodes2_ddp_few_channels_buffsize_sched.no_job_settings"},
                 dir);
  ASSERT_EQ(job.replay.size(), 2u);
  AnalysisInput input(job);
  const auto& v = input.replay_verdicts();
  ASSERT_EQ(v.size(), 2u);
  const ReplayVerdict& with = job.replay[v[0].result].settings_applied.empty() ? v[1] : v[0];
  EXPECT_EQ(with.kind, ReplayVerdictKind::kSlowAlone);
  EXPECT_TRUE(with.by_settings);
  EXPECT_GT(with.saving_us, 4000000);  // about 4,040 ms with them, 36 ms without
  auto fs = FindReplayVerdicts(input, {});
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].id, "replay.slow_alone");
  EXPECT_NE(fs[0].title.find("NCCL_MAX_NCHANNELS=1, NCCL_BUFFSIZE=65536"), std::string::npos)
      << fs[0].title;
}

TEST(ReplayH200, SettingsAreTheCauseOnceBothReplaysAreGiven) {
  // With its settings alone: the job costs what the replay costs.
  EXPECT_EQ(Only("nodes2_ddp_few_channels_buffsize_sched").kind, ReplayVerdictKind::kAsAlone);
  ExpectSlowAloneBySettings(kH200);
}

TEST(ReplayH100, SettingsAreTheCauseOnceBothReplaysAreGiven) {
  ExpectSlowAloneBySettings(kH100);
}

}  // namespace
}  // namespace commdx::analysis
