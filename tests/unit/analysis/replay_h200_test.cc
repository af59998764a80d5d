// The verdicts on real `commdx bench replay` snapshots of the 1xH200 machine
// (tests/data/replay_h200/README.md): two healthy captures replay as fast as they ran, the
// straggler is slow in the job by its measured wait, and the run slowed by NCCL_MAX_NCHANNELS=1
// NCCL_BUFFSIZE=65536 is slow alone by those settings once its replay without them is given.
#include <gtest/gtest.h>

#include "analysis/analysis_input.h"
#include "analysis/bench_analyzers.h"
#include "analysis/replay_verdict.h"
#include "ingest/load_inputs.h"

namespace commdx::analysis {
namespace {

const std::string kDir = std::string(COMMDX_SOURCE_DIR) + "/tests/data/replay_h200/";

Job Load(const std::vector<std::string>& names) {
  std::vector<std::string> paths;
  for (const auto& n : names) paths.push_back(kDir + n + ".replay.json");
  auto job = ingest::LoadInputs(paths, {});
  EXPECT_TRUE(job) << (job ? "" : job.error().ToString());
  return job ? std::move(job).value() : Job{};
}

ReplayVerdict Only(const std::string& name) {
  Job job = Load({name});
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
  EXPECT_NEAR(v.saving_us, 156248.169 - 108133.984, 1);
}

TEST(ReplayH200, SettingsAreTheCauseOnceBothReplaysAreGiven) {
  // With its settings alone: the job costs what the replay costs.
  EXPECT_EQ(Only("nodes2_ddp_few_channels_buffsize_sched").kind, ReplayVerdictKind::kAsAlone);
  Job job = Load({"nodes2_ddp_few_channels_buffsize_sched",
                  "nodes2_ddp_few_channels_buffsize_sched.no_job_settings"});
  ASSERT_EQ(job.replay.size(), 2u);
  AnalysisInput input(job);
  const auto& v = input.replay_verdicts();
  ASSERT_EQ(v.size(), 2u);
  const ReplayVerdict& with = job.replay[v[0].result].settings_applied.empty() ? v[1] : v[0];
  EXPECT_EQ(with.kind, ReplayVerdictKind::kSlowAlone);
  EXPECT_TRUE(with.by_settings);
  EXPECT_GT(with.saving_us, 4000000);  // 4,042.5 ms with them, 36.1 ms without
  auto fs = FindReplayVerdicts(input, {});
  ASSERT_EQ(fs.size(), 1u);  // the replay without them raises nothing of its own
  EXPECT_EQ(fs[0].id, "replay.slow_alone");
  EXPECT_NE(fs[0].title.find("NCCL_MAX_NCHANNELS=1, NCCL_BUFFSIZE=65536"), std::string::npos)
      << fs[0].title;
}

}  // namespace
}  // namespace commdx::analysis
