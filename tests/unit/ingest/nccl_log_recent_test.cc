// NCCL 2.29 / 2.30 log lines (issue 42) and the plugin lines, on real logs: the NCCL 2.30.4 log
// of NVIDIA/nccl#2397 (tests/data/nccl_log_recent) and the NCCL 2.28.9 logs of a job run with
// the Inspector profiler plugin (tests/data/inspector_job). Provenance in their READMEs.
#include <gtest/gtest.h>

#include <string>

#include "base/file.h"
#include "ingest/nccl_log/nccl_log_importer.h"
#include "unit/nccl_log_text.h"
#include "unit/repo_file.h"

namespace commdx {
namespace {

using nccl_log_test::Parse;

const NcclCommunicator* Comm(const Job& j, const std::string& id) {
  for (const auto& c : j.nccl.communicators)
    if (c.comm_id == id) return &c;
  return nullptr;
}

uint64_t QualityCount(const Job& j, std::string_view id) {
  uint64_t n = 0;
  for (const auto& e : j.quality.entries())
    if (e.id == id) n += e.count;
  return n;
}

const std::string kShrinkLog =
    "tests/data/nccl_log_recent/nccl2.30.4-shrink-rank-prefix-childcount.log";

TEST(NcclLogRecent, RankPrefixedInitStartIsReadForEveryRank) {
  Job j = Parse(RepoFile(kShrinkLog), kShrinkLog);
  const NcclCommunicator* world = Comm(j, "0xef3a13f82ff54f6a");
  ASSERT_NE(world, nullptr);
  EXPECT_EQ(world->nranks, 4);
  EXPECT_EQ(world->init_start, 4);  // the four "[Rank N] ncclCommInitRank ... Init START"
  EXPECT_EQ(world->init_complete, 4);
  ASSERT_EQ(world->ranks.size(), 4u);
  EXPECT_EQ(world->ranks.at(2).host, "ubuntu4");
  EXPECT_EQ(world->ranks.at(2).pid, 251907);
  EXPECT_EQ(world->ranks.at(1).bus_id, "b1000");
  // A rank that logged START and no COMPLETE stays visible as such: only rank 0's START here.
  std::string text = RepoFile(kShrinkLog);
  size_t start = text.find("[Rank 0] ncclCommInitRank");
  ASSERT_NE(start, std::string::npos);
  size_t bol = text.rfind('\n', start) + 1;
  Job one = Parse(text.substr(bol, text.find('\n', start) + 1 - bol));
  ASSERT_EQ(one.nccl.communicators.size(), 1u);
  EXPECT_EQ(one.nccl.communicators[0].init_start, 1);
  EXPECT_EQ(one.nccl.communicators[0].init_complete, 0);
  EXPECT_EQ(one.nccl.communicators[0].ranks.at(0).cuda_dev, 0);
}

TEST(NcclLogRecent, ShrinkLinesWithChildCountAreOneTwoRankCommunicator) {
  Job j = Parse(RepoFile(kShrinkLog), kShrinkLog);
  // Split and shrink lines log no commId; the two ranks that stayed form one communicator, named
  // by its parent and its color.
  const NcclCommunicator* shrunk = Comm(j, "0xef3a13f82ff54f6a/color 0");
  ASSERT_NE(shrunk, nullptr);
  EXPECT_EQ(shrunk->init_start, 2);
  EXPECT_EQ(shrunk->init_complete, 2);
  ASSERT_EQ(shrunk->ranks.size(), 2u);
  EXPECT_EQ(shrunk->ranks.at(1).pid, 251908);
  EXPECT_EQ(shrunk->nnodes, 1);
}

// PyTorch's new_group on NCCL 2.28.9 (tests/data/replay_subgroups): four ranks split into pairs
// (0,1), (2,3) and ranks two apart (0,2), (1,3), and NCCL connecting each communicator at its
// first call, after every init: the connection lines follow that call's COLL line.
TEST(NcclLogRecent, EachSplitIsItsOwnCommunicatorAndConnectsAtItsFirstCall) {
  std::string text;
  for (const char* pid : {"815", "816", "817", "818"})
    text += RepoFile(std::string("tests/data/replay_subgroups/nccl.vm.") + pid + ".log");
  Job j = Parse(text);
  const NcclCommunicator* world = Comm(j, "0xdc83c1ee5c6b9cce");
  ASSERT_NE(world, nullptr);
  EXPECT_EQ(world->ranks.size(), 4u);
  size_t splits = 0;
  for (const NcclCommunicator& c : j.nccl.communicators) {
    EXPECT_NE(c.comm_id, "?") << "every connection line is tied to its communicator";
    if (c.comm_id.rfind("0xdc83c1ee5c6b9cce/color ", 0) != 0) continue;
    ++splits;
    EXPECT_EQ(c.nranks, 2) << c.comm_id;
    EXPECT_EQ(c.ranks.size(), 2u) << c.comm_id;
    EXPECT_FALSE(c.connections.empty()) << c.comm_id;
    for (const NcclConnection& conn : c.connections) EXPECT_LT(conn.to_rank, 2) << c.comm_id;
  }
  EXPECT_EQ(splits, 4u);
  // The pair of ranks 2 and 3: processes 817 and 818, not the pair of 815 and 816.
  const NcclCommunicator* pair23 = Comm(j, "0xdc83c1ee5c6b9cce/color 1121016176");
  ASSERT_NE(pair23, nullptr);
  ASSERT_EQ(pair23->ranks.size(), 2u);
  EXPECT_EQ(pair23->ranks.at(0).pid, 817);
  EXPECT_EQ(pair23->ranks.at(1).pid, 818);
  // The world's ring reaches rank 3 only once it is used, after the splits were made.
  bool three_to_zero = false;
  for (const NcclConnection& conn : world->connections)
    three_to_zero |= conn.from_rank == 3 && conn.to_rank == 0;
  EXPECT_TRUE(three_to_zero);
}

TEST(NcclLogRecent, VersionAndGitVersionPerProcess) {
  Job j = Parse(RepoFile(kShrinkLog), kShrinkLog);
  ASSERT_EQ(j.nccl.processes.size(), 4u);
  for (const auto& p : j.nccl.processes) {
    EXPECT_EQ(p.version, "2.30.4") << p.host << ":" << p.pid;
    EXPECT_EQ(p.git_version, "HEAD 1933fdd-dirty") << p.host << ":" << p.pid;
    EXPECT_TRUE(p.plugins.empty());  // every plugin of this run was "Could not find"
  }
}

TEST(NcclLogRecent, EveryNcclLineOfTheRealLogIsAKnownKind) {
  Job j = Parse(RepoFile(kShrinkLog), kShrinkLog);
  EXPECT_EQ(QualityCount(j, "nccl_log.unknown_line"), 0u);
  EXPECT_GT(j.nccl.nccl_lines, 100u);
}

TEST(NcclLogRecent, RankPrefixThatDisagreesWithTheRankIsMalformed) {
  Job j = Parse(
      "ubuntu2:321050:321050 [1] NCCL INFO [Rank 2] ncclCommInitRank comm 0x5563e3b79140 rank 1 "
      "nranks 4 cudaDev 1 nvmlDev 1 busId b1000 commId 0xef3a13f82ff54f6a - Init START\n");
  EXPECT_TRUE(j.nccl.communicators.empty());
  EXPECT_EQ(QualityCount(j, "nccl_log.malformed_comm_init"), 1u);
}

TEST(NcclLogRecent, InspectorProfilerPluginIsNamedWithItsLibrary) {
  const std::string path = "tests/data/inspector_job/nccl.vm.1052.log";
  Job j = Parse(RepoFile(path), path);
  ASSERT_EQ(j.nccl.processes.size(), 1u);
  const NcclProcess& p = j.nccl.processes[0];
  ASSERT_EQ(p.plugins.size(), 1u);  // the env, net and tuner plugins were "Could not find"
  EXPECT_EQ(p.plugins[0].kind, NcclPluginKind::kProfiler);
  EXPECT_EQ(p.plugins[0].name, "Inspector");
  EXPECT_EQ(p.plugins[0].path, "/work/main/devtools/libnccl-profiler-inspector.so");
  EXPECT_EQ(p.plugins[0].ref.loc.line, 55u);  // "PROFILER/Plugin: Loaded Inspector (v5)"
  EXPECT_TRUE(p.git_version.empty());         // 2.28.9 prints no git line
  EXPECT_EQ(QualityCount(j, "nccl_log.unknown_line"), 0u);
}

// Net and tuner plugin lines, synthesised from NCCL's format strings at tag v2.29.7-1
// (src/plugin/net/net_v11.cc:18, src/plugin/net.cc:117, src/plugin/tuner/tuner_v3.cc:39,
// src/plugin/tuner.cc:87) with aws-ofi-nccl's names (its one library serves as net and tuner
// plugin): no public log of these lines with an address to cite was found.
TEST(NcclLogRecent, NetAndTunerPluginLines) {
  Job j = Parse(
      "gpu-st-ml-1:50292:50292 [0] NCCL INFO NET/Plugin: Loaded net plugin Libfabric (v11)\n"
      "gpu-st-ml-1:50292:50292 [0] NCCL INFO Successfully loaded external network plugin "
      "/opt/aws-ofi-nccl/lib/libnccl-net.so\n"
      "gpu-st-ml-1:50292:50292 [0] NCCL INFO TUNER/Plugin: Using nccl_ofi_tuner (v3)\n"
      "gpu-st-ml-1:50292:50292 [0] NCCL INFO Successfully loaded external tuner plugin "
      "/opt/aws-ofi-nccl/lib/libnccl-net.so\n");
  ASSERT_EQ(j.nccl.processes.size(), 1u);
  const auto& plugins = j.nccl.processes[0].plugins;
  ASSERT_EQ(plugins.size(), 2u);
  EXPECT_EQ(plugins[0].kind, NcclPluginKind::kNet);
  EXPECT_EQ(plugins[0].path, "/opt/aws-ofi-nccl/lib/libnccl-net.so");
  EXPECT_EQ(plugins[1].kind, NcclPluginKind::kTuner);
  EXPECT_EQ(plugins[1].name, "nccl_ofi_tuner");
  EXPECT_EQ(plugins[1].path, "/opt/aws-ofi-nccl/lib/libnccl-net.so");
  // The net plugin's name still goes to the network table (network.cc).
  ASSERT_EQ(j.nccl.nets.size(), 1u);
  EXPECT_EQ(j.nccl.nets[0].plugin, "Libfabric (v11)");
}

}  // namespace
}  // namespace commdx
