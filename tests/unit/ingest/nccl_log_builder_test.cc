// Tying connection/ring/count lines to communicators (ingest/nccl_log/builder*.cc).
#include <gtest/gtest.h>

#include "ingest/nccl_log/nccl_log_importer.h"
#include "unit/nccl_log_text.h"

namespace commdx {
namespace {

using nccl_log_test::Parse;

const NcclCommunicator* Comm(const Job& j, std::string_view id) {
  for (const auto& c : j.nccl.communicators)
    if (c.comm_id == id) return &c;
  return nullptr;
}

TEST(NcclLogBuilder, LazyConnectionsAfterCompleteGoToTheStartedComm) {
  // 2.28: connections are made at the first collective, after Init COMPLETE.
  Job j = Parse(
      "vm:656:667 [0] NCCL INFO ncclCommInitRankConfig comm 0xa rank 0 nranks 2 cudaDev 0 busId 60 "
      "commId 0x1 - Init START\n"
      "vm:656:667 [0] NCCL INFO ncclCommInitRankConfig comm 0xa rank 0 nranks 2 cudaDev 0 busId 60 "
      "commId 0x1 - Init COMPLETE\n"
      "vm:656:676 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n");
  ASSERT_EQ(j.nccl.communicators.size(), 1u);
  EXPECT_EQ(Comm(j, "0x1")->connections.size(), 1u);
}

TEST(NcclLogBuilder, OldEraConnectionsBeforeCompleteGoToTheNextComplete) {
  Job j = Parse(
      "h:1:2 [0] NCCL INFO Channel 00 : 0[1a000] -> 1[1b000] via P2P/IPC\n"
      "h:1:2 [0] NCCL INFO comm 0xa rank 0 nranks 2 cudaDev 0 busId 1a000 - Init COMPLETE\n"
      "h:1:3 [0] NCCL INFO Channel 00 : 0[1a000] -> 1[1b000] via SHM/direct/direct\n"
      "h:1:3 [0] NCCL INFO comm 0xb rank 0 nranks 2 cudaDev 0 busId 1a000 - Init COMPLETE\n");
  ASSERT_EQ(j.nccl.communicators.size(), 2u);
  const auto* first = Comm(j, "nranks=2#0");
  const auto* second = Comm(j, "nranks=2#1");
  ASSERT_TRUE(first && second);
  ASSERT_EQ(first->connections.size(), 1u);
  EXPECT_EQ(first->connections[0].kind, TransportKind::kP2P);
  ASSERT_EQ(second->connections.size(), 1u);
  EXPECT_EQ(second->connections[0].kind, TransportKind::kShm);
}

TEST(NcclLogBuilder, InterleavedProcessesMergeByCommId) {
  Job j = Parse(
      "a:10:11 [0] NCCL INFO ncclCommInitRank comm 0xa rank 0 nranks 2 cudaDev 0 busId 1000 commId "
      "0x77 - Init START\n"
      "b:20:21 [0] NCCL INFO ncclCommInitRank comm 0xa rank 1 nranks 2 cudaDev 0 busId 1000 commId "
      "0x77 - Init START\n"
      "b:20:22 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [send] via NET/IB/0/GDRDMA\n"
      "a:10:12 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/IB/0/GDRDMA\n");
  ASSERT_EQ(j.nccl.communicators.size(), 1u);
  const auto& c = j.nccl.communicators[0];
  EXPECT_EQ(c.ranks.size(), 2u);
  EXPECT_EQ(c.ranks.at(0).host, "a");
  EXPECT_EQ(c.ranks.at(1).host, "b");
  EXPECT_EQ(c.connections.size(), 2u);  // send side and receive side are two lines
  EXPECT_EQ(j.nccl.processes.size(), 2u);
}

TEST(NcclLogBuilder, IdenticalLinesAreCountedOnce) {
  std::string text =
      "vm:656:667 [0] NCCL INFO ncclCommInitRankConfig comm 0xa rank 0 nranks 2 cudaDev 0 busId 60 "
      "commId 0x1 - Init START\n";
  for (int i = 0; i < 5; ++i)
    text += "vm:656:676 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n";
  Job j = Parse(text);
  ASSERT_EQ(j.nccl.communicators.at(0).connections.size(), 1u);
  EXPECT_EQ(j.nccl.communicators.at(0).connections[0].count, 5u);
}

TEST(NcclLogBuilder, ConnectionOutsideTheCommIsLeftUnowned) {
  Job j = Parse(
      "vm:656:667 [0] NCCL INFO ncclCommInitRankConfig comm 0xa rank 0 nranks 2 cudaDev 0 busId 60 "
      "commId 0x1 - Init START\n"
      "vm:656:676 [0] NCCL INFO Channel 00/0 : 0[0] -> 5[5] via P2P/CUMEM/read\n");
  EXPECT_TRUE(Comm(j, "0x1")->connections.empty());
  ASSERT_NE(Comm(j, "?"), nullptr);
  EXPECT_EQ(Comm(j, "?")->connections.size(), 1u);
}

TEST(NcclLogBuilder, SeveralFilesMergeIntoOneJob) {
  Job job;
  for (int r = 0; r < 2; ++r) {
    FileText f;
    f.path = "nccl.vm." + std::to_string(100 + r) + ".log";
    f.data = "vm:" + std::to_string(100 + r) + ":1 [" + std::to_string(r) +
             "] NCCL INFO comm 0xa rank " + std::to_string(r) +
             " nranks 2 cudaDev 0 nvmlDev 0 busId " + (r ? "70" : "60") +
             " commId 0x5 - Init COMPLETE\nvm:" + std::to_string(100 + r) + ":1 [" +
             std::to_string(r) + "] NCCL INFO NCCL version 2.28.9+cuda13.0\n";
    ingest::ParseNcclLogText(f, job);
  }
  ASSERT_EQ(job.nccl.communicators.size(), 1u);
  EXPECT_EQ(job.nccl.communicators[0].ranks.size(), 2u);
  EXPECT_EQ(job.nccl.processes.size(), 2u);
  EXPECT_EQ(job.nccl.files.size(), 2u);
}

}  // namespace
}  // namespace commdx
