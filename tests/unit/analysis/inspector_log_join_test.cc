// Inspector ids joined with NCCL log commIds: a cut id by prefix, only when one commId has it; a
// whole (short) id only when equal; names, split communicators and other ids never. The real
// captures: tests/golden/inspector_log_join_test.cc.
#include "analysis/inspector_log_join.h"

#include <gtest/gtest.h>

#include "analysis/inspector_analyzers.h"

namespace commdx::analysis {
namespace {

NcclCommunicator Comm(const std::string& id, int nranks = 2) {
  NcclCommunicator c;
  c.comm_id = id;
  c.nranks = nranks;
  for (int r = 0; r < nranks; ++r) {
    NcclRankInfo& i = c.ranks[r];
    i.rank = r;
    i.host = "node" + std::to_string(r);
    i.pid = 100 + r;
    i.cuda_dev = r;
    i.bus_id = r == 0 ? "1a000" : "3b000";
    i.ref = {{"nccl.log", static_cast<uint32_t>(10 + r)},
             "Init START of rank " + std::to_string(r)};
  }
  c.init_refs.push_back(c.ranks[0].ref);
  return c;
}

TEST(InspectorLogJoin, CutIdIsAPrefixWholeIdMustBeEqual) {
  EXPECT_TRUE(InspectorIdNames("0x9b08cb12e3d529", "0x9b08cb12e3d529b8"));
  EXPECT_TRUE(InspectorIdNames("0x9b08cb12e3d529", "0x9B08CB12E3D529B8"));  // case
  EXPECT_TRUE(InspectorIdNames("0x9b08cb12e3d529", "0x9b08cb12e3d529"));    // a 14-digit hash
  EXPECT_FALSE(InspectorIdNames("0x9b08cb12e3d529", "0x9b08cb12e3d52ab8"));
  // Under 16 characters the plugin cut nothing: the hash is that short, and only equal joins.
  EXPECT_TRUE(InspectorIdNames("0x3a5f", "0x3a5f"));
  EXPECT_FALSE(InspectorIdNames("0x3a5f", "0x3a5f0012"));
  EXPECT_FALSE(InspectorIdNames("DP Group 0", "0x9b08cb12e3d529b8"));
  EXPECT_FALSE(InspectorIdNames("0x9b08cb12e3d529", "nranks=2#0"));
  EXPECT_FALSE(InspectorIdNames("0x", "0x9b08"));
}

TEST(InspectorLogJoin, OneMatchJoinsWithItsRanks) {
  NcclSetup s;
  s.communicators.push_back(Comm("0x1111222233334444"));
  s.communicators.push_back(Comm("0x9b08cb12e3d529b8"));
  InspectorLogJoin j = JoinInspectorComm(s, "0x9b08cb12e3d529");
  ASSERT_EQ(j.comm, &s.communicators[1]);
  EXPECT_TRUE(j.several.empty());
  std::vector<EvidenceRef> refs;
  std::string text = DescribeJoinedRank(j, "0x9b08cb12e3d529", 1, refs);
  EXPECT_EQ(text,
            " NCCL's log of the same job (commId 0x9b08cb12e3d529b8) puts rank 1 at pid 101 on "
            "node1, GPU 1, bus 3b000.");
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_EQ(refs[0].where.line, 11u);
  // A rank the log does not hold: nothing said.
  EXPECT_EQ(DescribeJoinedRank(j, "0x9b08cb12e3d529", 5, refs), "");
}

TEST(InspectorLogJoin, TwoCommIdsWithThePrefixAreAmbiguous) {
  NcclSetup s;
  s.communicators.push_back(Comm("0x9b08cb12e3d529b8"));
  s.communicators.push_back(Comm("0x9b08cb12e3d52907", 4));
  InspectorLogJoin j = JoinInspectorComm(s, "0x9b08cb12e3d529");
  EXPECT_EQ(j.comm, nullptr);
  ASSERT_EQ(j.several.size(), 2u);
  std::vector<EvidenceRef> refs;
  std::string text = DescribeJoin(j, "0x9b08cb12e3d529", refs);
  EXPECT_NE(text.find("is the start of 2 commIds in NCCL's log (0x9b08cb12e3d529b8, "
                      "0x9b08cb12e3d52907)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("joined with none"), std::string::npos) << text;
  EXPECT_EQ(refs.size(), 2u);
  // A late rank of an ambiguous communicator gets the same sentence, not a guess.
  refs.clear();
  EXPECT_EQ(DescribeJoinedRank(j, "0x9b08cb12e3d529", 1, refs), text);
}

TEST(InspectorLogJoin, SplitCommunicatorsAndNamesJoinNothing) {
  NcclSetup s;
  NcclCommunicator split = Comm("nranks=2#0");  // ncclCommSplit's init lines print no commId
  split.identified = false;
  s.communicators.push_back(split);
  InspectorLogJoin j = JoinInspectorComm(s, "0x9b08cb12e3d529");
  EXPECT_EQ(j.comm, nullptr);
  EXPECT_FALSE(j.log_has_ids);
  std::vector<EvidenceRef> refs;
  EXPECT_EQ(DescribeJoin(j, "0x9b08cb12e3d529", refs), "");  // no commId to compare with

  s.communicators.push_back(Comm("0x1111222233334444"));
  j = JoinInspectorComm(s, "0x9b08cb12e3d529");
  EXPECT_TRUE(j.log_has_ids);
  EXPECT_NE(DescribeJoin(j, "0x9b08cb12e3d529", refs).find("no communicator whose commId starts"),
            std::string::npos);
  // NCCL 2.30's buckets name the communicator, not its id: nothing to say.
  j = JoinInspectorComm(s, "DP Group 0");
  EXPECT_EQ(DescribeJoin(j, "DP Group 0", refs), "");
}

// The late-rank finding of a joined communicator names the late rank's GPU from the log and
// cites its init line.
TEST(InspectorLogJoin, LateRankFindingCitesTheLogLine) {
  Job job;
  job.nccl.communicators.push_back(Comm("0x9b08cb12e3d529b8"));
  for (uint64_t sn = 0; sn < 10; ++sn)
    for (int rank = 0; rank < 2; ++rank) {
      InspectorRecord r;
      r.comm_id = "0x9b08cb12e3d529";
      r.rank = rank;
      r.n_ranks = 2;
      r.nnodes = 2;
      r.hostname = "node" + std::to_string(rank);
      r.pid = 100 + rank;
      r.coll = "AllReduce";
      r.coll_sn = sn;
      r.msg_bytes = 32 << 20;
      r.exec_ns = rank == 1 ? 20'000'000 : 70'000'000;  // rank 0 waits 50 ms for rank 1
      r.where = {"inspector.log", static_cast<uint32_t>(sn * 2 + rank + 1)};
      job.inspector.push_back(r);
    }
  std::vector<Finding> out = FindInspectorLateRank(job, {});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].rank, 1);
  EXPECT_NE(out[0].detail.find("(commId 0x9b08cb12e3d529b8) puts rank 1 at pid 101 on node1, "
                               "GPU 1, bus 3b000."),
            std::string::npos)
      << out[0].detail;
  bool cited = false;
  for (const EvidenceRef& r : out[0].refs)
    cited = cited || (r.where.file == "nccl.log" && r.where.line == 11);
  EXPECT_TRUE(cited);
}

}  // namespace
}  // namespace commdx::analysis
