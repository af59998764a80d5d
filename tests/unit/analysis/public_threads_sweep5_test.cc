// Public issue-thread artifacts of the fifth blind sweep (docs/measurements/root-cause.md),
// labelled from their threads before commdx read them (tests/data/*/README.md says where each
// came from). Each test is what the label asks of the whole diagnosis: the root cause and the
// advice, read through `diagnose`'s pipeline.
#include <gtest/gtest.h>

#include <string>

#include "unit/analysis/diagnose_file.h"

namespace commdx {
namespace {

const std::string kData = std::string(COMMDX_SOURCE_DIR) + "/tests/data/";

using Result = testing::Diagnosed;

Result Diagnose(const std::string& name) { return testing::DiagnoseFile(kData + name); }

const Finding* Find(const Result& r, std::string_view id) { return testing::FindingWithId(r, id); }

// nccl-tests#29: IB carries the data; virbr0 sits only in the unused NET/Socket list.
TEST(PublicSweep5, BridgeInTheSocketListOfAnIbJobIsNoError) {
  Result r = Diagnose("nccl_logs_multihost/nccltests29-ib-used-virbr0-in-socket-list.log");
  const Finding* f = Find(r, "comm.wrong_interface");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kInfo);
  EXPECT_NE(f->title.find("unused while NCCL runs over InfiniBand"), std::string::npos);
  for (const auto& x : r.findings) EXPECT_NE(x.severity, Severity::kError) << x.id;
  EXPECT_FALSE(r.root.has_value()) << r.root->id;
}

// nccl#1698: no NIC line, but the completion's IPv4-mapped GIDs say RoCE.
TEST(PublicSweep5, Ipv4MappedGidsMakeTheAdviceRoce) {
  Result r = Diagnose("nccl_logs_multihost/nccl1698-roce-status12-ipv4-mapped-gids.log");
  ASSERT_TRUE(r.root.has_value());
  EXPECT_EQ(r.root->id, "comm.ib_error");
  const Finding* f = Find(r, "comm.ib_error");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->fix.rfind("On RoCE: ", 0), 0u) << f->fix;
}

// awsome-distributed-ai#192: the connect goes to a loopback address; the fix is the interface.
TEST(PublicSweep5, ConnectToLoopbackPointsAtTheSocketInterface) {
  Result r = Diagnose("nccl_logs_multihost/awsome192-connect-to-loopback-aborted.log");
  ASSERT_TRUE(r.root.has_value());
  EXPECT_EQ(r.root->id, "comm.bootstrap_failure");
  const Finding* f = Find(r, "comm.bootstrap_failure");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->fix.find("NCCL_SOCKET_IFNAME"), std::string::npos) << f->fix;
  EXPECT_NE(f->detail.find("loopback"), std::string::npos) << f->detail;
}

// particleflow#390: only the exception's C++ frames: still a watchdog timeout, never healthy.
TEST(PublicSweep5, WatchdogFramesAloneAreATimeout) {
  Result r = Diagnose("hang/public/watchdog_particleflow390_frames_only.log");
  ASSERT_TRUE(r.root.has_value());
  EXPECT_EQ(r.root->id, "hang.watchdog_timeout");
  const Finding* f = Find(r, "hang.watchdog_timeout");
  ASSERT_NE(f, nullptr);
  EXPECT_FALSE(f->rank.has_value());
}

// Megatron-LM#1140: four timeouts, each on one rank, in groups whose numbers do not compare.
TEST(PublicSweep5, TimeoutsOfOneRankEachNameEveryRankAndNoLaggard) {
  Result r = Diagnose("hang/public/watchdog_megatron1140_ranks_in_own_groups.log");
  const Finding* f = Find(r, "hang.watchdog_timeout");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("ranks 0,3 in 4 collectives"), std::string::npos) << f->title;
  EXPECT_FALSE(f->rank.has_value());
  EXPECT_NE(f->detail.find("rank 0 ALLREDUCE #1796"), std::string::npos) << f->detail;
  EXPECT_EQ(Find(r, "hang.rank_behind"), nullptr);
  EXPECT_EQ(Find(r, "hang.desync"), nullptr);
}

// nccl-tests#320: GPU0-GPU1 bridged, GPU2 alone: PCIe pairs by design, no bridge to check.
TEST(PublicSweep5, ThreeCardsWithOneBridgedPairIsNotAMissingBridge) {
  Result r = Diagnose("smi/nccltests320-3gpu-one-nvlink-pair-2nic-topo-m.txt");
  const Finding* f = Find(r, "topo.pcie_only");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kInfo);
  EXPECT_NE(f->title.find("NVLink-bridged in pairs (0-1)"), std::string::npos) << f->title;
  EXPECT_EQ(f->fix.find("bridges/cabling"), std::string::npos) << f->fix;
  // Topology alone shows no symptom: the root is named as a condition, not a measured loss.
  ASSERT_TRUE(r.root.has_value());
  EXPECT_EQ(r.root->summary.rfind("No symptom in these inputs (topology only", 0), 0u)
      << r.root->summary;
  EXPECT_LE(r.root->confidence, 0.6);
  const Finding* nic = Find(r, "topo.nic_far");
  ASSERT_NE(nic, nullptr);
  EXPECT_NE(nic->title.find("(NODE or PHB)"), std::string::npos) << nic->title;
}

}  // namespace
}  // namespace commdx
