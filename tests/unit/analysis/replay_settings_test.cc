// The NCCL settings a replay takes from the job, on a real capture slowed by two of them
// (NCCL_MAX_NCHANNELS=1 NCCL_BUFFSIZE=65536, two ranks as two nodes on one H200) and on its
// healthy twin: the machine's own settings (NCCL_HOSTID, NCCL_NVLS_ENABLE) never travel.
#include "analysis/replay_settings.h"

#include <gtest/gtest.h>

#include "ingest/load_inputs.h"

namespace commdx::analysis {
namespace {

Job Load(const std::string& rel) {
  auto job = ingest::LoadInputs({COMMDX_SOURCE_DIR "/" + rel});
  EXPECT_TRUE(job) << (job ? "" : job.error().message);
  return job ? std::move(*job) : Job{};
}

TEST(ReplaySettings, TheSettingsThatSlowedTheJobAndNotTheMachines) {
  std::vector<ReplaySetting> s =
      JobNcclSettings(Load("examples/nodes2_ddp_few_channels_buffsize_sched"));
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].name, "NCCL_MAX_NCHANNELS");
  EXPECT_EQ(s[0].value, "1");
  EXPECT_NE(s[0].where.find("nccl.vm.2620.log:44"), std::string::npos) << s[0].where;
  EXPECT_EQ(s[1].name, "NCCL_BUFFSIZE");
  EXPECT_EQ(s[1].value, "65536");
  EXPECT_TRUE(JobNcclSettings(Load("examples/nodes2_ddp_healthy_twin_sched")).empty());
  EXPECT_FALSE(IsReplayedSetting("NCCL_HOSTID"));
  EXPECT_FALSE(IsReplayedSetting("NCCL_SOCKET_IFNAME"));
  EXPECT_TRUE(IsReplayedSetting("NCCL_PROTO"));
}

TEST(ReplaySettings, EnvironmentDumpsWhenNcclDidNotEchoThem) {
  Job job;
  job.env.vars = {{"NCCL_ALGO", "Tree"}, {"NCCL_IB_HCA", "mlx5_0"}, {"NCCL_ALGO", "Ring"}};
  std::vector<ReplaySetting> s = JobNcclSettings(job);
  ASSERT_EQ(s.size(), 1u);  // the first value of a name; the HCA is the machine's
  EXPECT_EQ(s[0].value, "Tree");
  EXPECT_EQ(s[0].where, "environment snapshot");
}

}  // namespace
}  // namespace commdx::analysis
