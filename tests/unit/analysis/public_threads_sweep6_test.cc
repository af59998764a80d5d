// Public issue-thread artifacts of the sixth blind sweep (docs/measurements/root-cause.md),
// labelled from their threads before commdx read them (tests/data/public_sweep6/README.md says
// where each came from and what its label is). Each test is what the label asks of the whole
// diagnosis: the root cause, the severity and the advice.
#include <gtest/gtest.h>

#include <string>

#include "unit/analysis/diagnose_file.h"

namespace commdx {
namespace {

const std::string kData = std::string(COMMDX_SOURCE_DIR) + "/tests/data/public_sweep6/";

using Result = testing::Diagnosed;

Result Diagnose(const std::string& name) { return testing::DiagnoseFile(kData + name); }

const Finding* Find(const Result& r, std::string_view id) { return testing::FindingWithId(r, id); }

using testing::Has;

// nccl-tests#5: the pre-2.x failure line ("NCCL failure all_reduce.cu:95 '...'", no "Test ")
// is a failure, not a hang, and the NCCL it was compiled with is the fix.
TEST(PublicSweep6, OldFailureLineAndNccl1) {
  Result r = Diagnose("NVIDIA-nccl-tests_5.nccl_tests.txt");
  ASSERT_EQ(r.job.bench.size(), 1u);
  EXPECT_EQ(r.job.bench[0].nccl_version, "1.0");
  ASSERT_EQ(r.job.bench[0].failures.size(), 1u);
  EXPECT_EQ(r.job.bench[0].failures[0].message, "unhandled cuda error");
  EXPECT_EQ(r.job.bench[0].failures[0].loc.line, 16);
  EXPECT_EQ(Find(r, "bench.no_results"), nullptr);
  ASSERT_TRUE(r.root.has_value());
  EXPECT_EQ(r.root->id, "bench.test_failed");
  const Finding* f = Find(r, "bench.test_failed");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(Has(f->fix, "compiled with NCCL 1.0")) << f->fix;
  EXPECT_TRUE(Has(f->fix, "NCCL 2")) << f->fix;
}

// nccl-tests#219: 'internal error' before the first size on two hosts: interface selection.
TEST(PublicSweep6, InternalErrorAcrossHostsNamesTheInterface) {
  Result r = Diagnose("NVIDIA-nccl-tests_219.nccl_tests.txt");
  ASSERT_EQ(r.job.bench.size(), 1u);
  EXPECT_EQ(r.job.bench[0].topology.nodes, 2);
  const Finding* f = Find(r, "bench.test_failed");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(Has(f->fix, "NCCL_SOCKET_IFNAME must match an interface on every host")) << f->fix;
}

// coreweave/nccl-tests#43: a device list cut to its last line ("Rank 71"): at least 72 ranks,
// host count unknown; the healthy table gives nothing.
TEST(PublicSweep6, CutDeviceListCountsRanksFromTheIndex) {
  Result r = Diagnose("coreweave-nccl-tests_43.nccl_tests.txt");
  ASSERT_EQ(r.job.bench.size(), 1u);
  EXPECT_EQ(r.job.bench[0].nranks, 72);
  EXPECT_EQ(r.job.bench[0].topology.nodes, 0);
  EXPECT_EQ(r.job.bench[0].rows.size(), 5u);
  EXPECT_TRUE(r.findings.empty()) << r.findings.front().id;
}

// Lightning#4420 (negative control): one node, ranks 0 and 1 joined by P2P; the NET/Socket list
// and NCCL_IB_DISABLE=1 carry no traffic of this job.
TEST(PublicSweep6, SocketListOfASingleNodeJobIsNoWarning) {
  Result r = Diagnose("Lightning-AI-pytorch-lightning_4420.nccl_log.txt");
  EXPECT_EQ(Find(r, "comm.socket_fallback"), nullptr);
  const Finding* f = Find(r, "comm.env_override");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kInfo);
  EXPECT_TRUE(Has(f->detail, "the network carries none of its traffic")) << f->detail;
  for (const auto& x : r.findings) EXPECT_EQ(x.severity, Severity::kInfo) << x.id;
  EXPECT_FALSE(r.root.has_value()) << r.root->id;
}

// insightface#1444: a system error with no WARN line: the usual causes, containers' networks
// among them.
TEST(PublicSweep6, SystemErrorWithoutWarnNamesTheUsualCauses) {
  Result r = Diagnose("deepinsight-insightface_1444.job_log.txt");
  const Finding* f = Find(r, "comm.nccl_warn");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(Has(f->fix, "--network=host")) << f->fix;
  EXPECT_TRUE(Has(f->fix, "--shm-size")) << f->fix;
}

// nccl#1488: NVLS failed after a Fabric Manager restart: the advice says to reset the GPUs.
TEST(PublicSweep6, NvlsAdviceCoversAFabricManagerRestart) {
  Result r = Diagnose("NVIDIA-nccl_1488.nccl_log.txt");
  ASSERT_TRUE(r.root.has_value());
  EXPECT_EQ(r.root->id, "comm.nvls_failure");
  const Finding* f = Find(r, "comm.nvls_failure");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(Has(f->fix, "reset the GPUs or reboot")) << f->fix;
}

// The labels commdx met before this sweep's changes: the root each names.
TEST(PublicSweep6, RootsOfTheOtherFaults) {
  const std::pair<const char*, const char*> cases[] = {
      {"hkproj-pytorch-transformer-distributed_1.job_log.txt", "comm.bootstrap_failure"},
      {"dmlc-xgboost_5963.nccl_log.txt", "comm.shm_too_small"},
      {"pytorch-pytorch_177472.job_log.txt", "comm.nvls_failure"},
      {"NVIDIA-nccl_147.nccl_log.txt", "hang.desync"},
  };
  for (const auto& [file, id] : cases) {
    Result r = Diagnose(file);
    ASSERT_TRUE(r.root.has_value()) << file;
    EXPECT_EQ(r.root->id, id) << file;
  }
}

// dstack#2712 and nccl#1267 (one node's log of a version mismatch): nothing at error level.
TEST(PublicSweep6, ControlsRaiseNoError) {
  for (const char* file : {"dstackai-dstack_2712.nccl_log.txt", "NVIDIA-nccl_1267.nccl_log.txt"}) {
    Result r = Diagnose(file);
    for (const auto& x : r.findings)
      EXPECT_NE(x.severity, Severity::kError) << file << ": " << x.id;
  }
}

}  // namespace
}  // namespace commdx
