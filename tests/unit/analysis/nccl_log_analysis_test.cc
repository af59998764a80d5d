// The comm_* analyzers on small logs built from real lines: each finding appears when its
// evidence is there, with the right severity, and not when it is absent.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "analysis/comm_analyzers.h"
#include "analysis/comm_common.h"
#include "ingest/nccl_log/nccl_log_importer.h"
#include "unit/nccl_log_text.h"

namespace commdx::analysis {
namespace {

using nccl_log_test::Parse;

std::vector<Finding> All(const Job& j) { return RunAnalyzers(j, {}, {Source::kLogs}); }

const Finding* Find(const std::vector<Finding>& fs, std::string_view id) {
  for (const auto& f : fs)
    if (f.id == id) return &f;
  return nullptr;
}

const char* kHealthy2xH200 =
    "vm:656:656 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\n"
    "vm:656:667 [0] NCCL INFO NET/IB : No device found.\n"
    "vm:656:667 [0] NCCL INFO NET/Socket : Using [0]eth0:192.0.2.2<0>\n"
    "vm:656:667 [0] NCCL INFO Using network Socket\n"
    "vm:656:667 [0] NCCL INFO ncclCommInitRankConfig comm 0xa rank 0 nranks 2 cudaDev 0 nvmlDev 0 "
    "busId 60 commId 0x88 - Init START\n"
    "vm:656:668 [1] NCCL INFO ncclCommInitRankConfig comm 0xb rank 1 nranks 2 cudaDev 1 nvmlDev 1 "
    "busId 70 commId 0x88 - Init START\n"
    "vm:656:667 [0] NCCL INFO comm 0xa rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0\n"
    "vm:656:667 [0] NCCL INFO 24 coll channels, 24 collnet channels, 0 nvls channels, 32 p2p "
    "channels, 32 p2p channels per peer\n"
    "vm:656:667 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n"
    "vm:656:668 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via P2P/CUMEM/read\n";

TEST(NcclLogAnalysis, HealthyNodeRaisesNothingAboveInfo) {
  auto fs = All(Parse(kHealthy2xH200));
  for (const auto& f : fs) EXPECT_EQ(f.severity, Severity::kInfo) << f.id << ": " << f.title;
}

TEST(NcclLogAnalysis, SocketBetweenGpusOfOneNode) {
  std::string log =
      std::string(kHealthy2xH200) +
      "vm:656:667 [0] NCCL INFO NCCL_P2P_DISABLE set by environment to 1.\n"
      "vm:656:667 [0] NCCL INFO NCCL_SHM_DISABLE set by environment to 1.\n"
      "vm:656:667 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[1] [send] via NET/Socket/0\n";
  auto fs = All(Parse(log));
  const Finding* f = Find(fs, "comm.socket_fallback");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_NE(f->title.find("one node"), std::string::npos);
  ASSERT_FALSE(f->refs.empty());
  EXPECT_EQ(f->refs[0].where.line, 13u);  // cites the NET/Socket line
  EXPECT_NE(Find(fs, "comm.p2p_disabled"), nullptr);
}

TEST(NcclLogAnalysis, ShmWithoutStatedCauseIsShmTransport) {
  auto fs =
      All(Parse("gpu2-ru7:2144:2556 [2] NCCL INFO Ring 00 : 2[3d000] -> 3[3e000] via direct shared "
                "memory\n"));
  const Finding* f = Find(fs, "comm.shm_transport");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_EQ(Find(fs, "comm.p2p_disabled"), nullptr);
}

TEST(NcclLogAnalysis, P2pLevelIsAStatedCause) {
  auto fs =
      All(Parse("a:1:1 [0] NCCL INFO NCCL_P2P_LEVEL set by environment to LOC\n"
                "a:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via SHM/direct/direct\n"));
  const Finding* f = Find(fs, "comm.p2p_disabled");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_NE(f->title.find("NCCL_P2P_LEVEL=LOC"), std::string::npos);
}

TEST(NcclLogAnalysis, IbWithoutGdrdma) {
  auto fs =
      All(Parse("s:1:2 [5] NCCL INFO Channel 03/0 : 5[5] -> 12[4] [send] via NET/IB/3\n"
                "s:1:2 [5] NCCL INFO Channel 07/0 : 5[5] -> 12[4] [send] via NET/IB/3\n"));
  ASSERT_NE(Find(fs, "comm.gdr_disabled"), nullptr);
  auto ok =
      All(Parse("s:1:2 [5] NCCL INFO Channel 03/0 : 5[5] -> 12[4] [send] via NET/IB/3/GDRDMA\n"));
  EXPECT_EQ(Find(ok, "comm.gdr_disabled"), nullptr);
  // Sockets never do GDR: NCCL's "Disabled for HCA 0 'eth0'" on NET/Socket is not a finding.
  auto sock = All(
      Parse("vm:656:667 [0] NCCL INFO NET/Socket : GPU Direct RDMA Disabled for HCA 0 'eth0'\n"));
  EXPECT_EQ(Find(sock, "comm.gdr_disabled"), nullptr);
}

TEST(NcclLogAnalysis, FewChannelsNamesTheOverride) {
  auto fs =
      All(Parse("v:1:1 [0] NCCL INFO NCCL_MAX_NCHANNELS set by environment to 1.\n"
                "v:1:1 [0] NCCL INFO ncclCommInitRank comm 0xa rank 0 nranks 2 cudaDev 0 busId 60 "
                "commId 0x9 - Init START\n"
                "v:1:1 [0] NCCL INFO 1 coll channels, 1 collnet channels, 0 nvls channels, 2 p2p "
                "channels, 2 p2p channels per peer\n"));
  const Finding* f = Find(fs, "comm.few_channels");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_NE(f->detail.find("NCCL_MAX_NCHANNELS=1"), std::string::npos);
}

TEST(NcclLogAnalysis, EnvOverrideSeverities) {
  auto fs =
      All(Parse("a:1:1 [0] NCCL INFO NCCL_PROTO set by environment to Simple\n"
                "a:1:1 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 0.\n"
                "a:1:1 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth0\n"
                "a:1:1 [0] NCCL INFO NCCL_DEBUG_SUBSYS set by environment to INIT\n"));
  int harmful = 0, info = 0;
  for (const auto& f : fs) {
    if (f.id != "comm.env_override") continue;
    if (f.severity == Severity::kWarning) ++harmful;
    if (f.severity == Severity::kInfo) ++info;
  }
  EXPECT_EQ(harmful, 1);  // NCCL_PROTO; IB_DISABLE=0 changes nothing
  EXPECT_EQ(info, 1);     // SOCKET_IFNAME
}

TEST(NcclLogAnalysis, VersionMismatchAcrossHosts) {
  auto fs =
      All(Parse("a:1:1 [0] NCCL INFO NCCL version 2.18.1+cuda12.1\n"
                "b:2:2 [0] NCCL INFO NCCL version 2.14.3+cuda11.7\n"));
  const Finding* f = Find(fs, "comm.version_mismatch");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("2.14.3 on b, 2.18.1 on a"), std::string::npos) << f->title;
  EXPECT_EQ(Find(All(Parse(kHealthy2xH200)), "comm.version_mismatch"), nullptr);
}

TEST(NcclLogAnalysis, SameBusIdForTwoRanks) {
  auto fs = All(
      Parse("h:1:1 [0] NCCL INFO comm 0xa rank 0 nranks 2 cudaDev 0 busId 1000 - Init COMPLETE\n"
            "h:2:2 [0] NCCL INFO comm 0xb rank 1 nranks 2 cudaDev 0 busId 1000 - Init COMPLETE\n"));
  const Finding* f = Find(fs, "comm.duplicate_gpu");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->refs.size(), 2u);
}

TEST(NcclLogAnalysis, WrongInterfaceSeverityFollowsHostSpan) {
  std::string docker = "a:1:1 [0] NCCL INFO NET/Socket : Using [0]docker0:172.17.0.1<0>\n";
  auto multi = All(Parse(
      docker +
      "a:1:1 [0] NCCL INFO comm 0xa rank 0 nRanks 16 nNodes 2 localRanks 8 localRank 0 MNNVL 0\n"));
  ASSERT_NE(Find(multi, "comm.wrong_interface"), nullptr);
  EXPECT_EQ(Find(multi, "comm.wrong_interface")->severity, Severity::kError);
  const std::string lo_lines =
      "a:1:1 [0] NCCL INFO Bootstrap : Using [0]lo:127.0.0.1<0>\n"
      "a:2:2 [1] NCCL INFO Bootstrap : Using [0]lo:127.0.0.1<0>\n";
  // One host's processes and nothing about the rest: each node writes its own log, so this may
  // be one node of many (NVIDIA/nccl#975 posted eight ranks of one host of a multi-node job).
  auto one_host = All(Parse(lo_lines));
  ASSERT_NE(Find(one_host, "comm.wrong_interface"), nullptr);
  EXPECT_EQ(Find(one_host, "comm.wrong_interface")->severity, Severity::kWarning);
  EXPECT_LT(Find(one_host, "comm.wrong_interface")->confidence, 0.7);
  // The job's node count says one node: a note.
  auto lo = All(Parse(lo_lines +
                      "a:1:1 [0] NCCL INFO comm 0xa rank 0 nRanks 2 nNodes 1 localRanks 2 "
                      "localRank 0 MNNVL 0\n"));
  ASSERT_NE(Find(lo, "comm.wrong_interface"), nullptr);
  EXPECT_EQ(Find(lo, "comm.wrong_interface")->severity, Severity::kInfo);  // one node
  auto good = All(Parse("a:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n"));
  EXPECT_EQ(Find(good, "comm.wrong_interface"), nullptr);
}

// The public log of NVIDIA/nccl#975 (tests/data/nccl_log_fixtures, case43): one host's eight
// ranks of a multi-node job bootstrapping over a link-local address, no node count. Reported as
// a one-node note before; the job spanned nodes.
TEST(NcclLogAnalysis, OneHostsLogOfAJobIsNotAOneNodeJob) {
  std::ifstream in(std::string(COMMDX_SOURCE_DIR) +
                   "/tests/data/nccl_log_fixtures/"
                   "case43-nccl975-one-host-of-multinode-ib1-link-local-bootstrap.log");
  std::stringstream text;
  text << in.rdbuf();
  ASSERT_FALSE(text.str().empty());
  auto fs = All(Parse(text.str()));
  const Finding* f = Find(fs, "comm.wrong_interface");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_NE(f->title.find("link-local"), std::string::npos) << f->title;
}

// A message commdx does not know, logged with a counter or an address that changes: one finding.
TEST(NcclLogAnalysis, UnknownWarningsThatDifferOnlyInNumbersAreOneFinding) {
  std::string log;
  for (int i = 0; i < 50; ++i)
    log += "h:1:2 [0] misc/foo.cc:50 NCCL WARN Something odd on attempt " + std::to_string(i) +
           " at 0x7f" + std::to_string(1000 + i) + "ab\n";
  log += "h:1:2 [0] misc/foo.cc:60 NCCL WARN Something else entirely\n";
  auto fs = All(Parse(log));
  int unknown = 0;
  for (const auto& f : fs) unknown += f.id == "comm.nccl_warn";
  EXPECT_EQ(unknown, 2);
  const Finding* f = Find(fs, "comm.nccl_warn");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->detail.find("50 warning lines"), std::string::npos) << f->detail;
  EXPECT_NE(f->detail.find("differ only in their numbers"), std::string::npos) << f->detail;
}

TEST(NcclLogAnalysis, WarnCatalogue) {
  struct Case {
    const char* line;
    const char* id;
  } cases[] = {
      {"u:1:2 [3] misc/shmutils.cc:112 NCCL WARN Error: failed to extend /dev/shm/nccl-abc to "
       "9637892 bytes",
       "comm.shm_too_small"},
      {"h:1:2 [0] bootstrap.cc:37 NCCL WARN Bootstrap : no socket interface found",
       "comm.bootstrap_failure"},
      {"h:1:2 [0] misc/socket.cc:538 NCCL WARN Net : Connection closed by remote peer x<47861>",
       "comm.remote_exited"},
      {"h:1:2 [0] transport/net_ib.cc:839 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<1> "
       "with "
       "error 12, opcode 0, len 0, vendor err 129",
       "comm.ib_error"},
      {"[2025-07-21 19:05:29] node004:27907:27907 [1] transport/nvls.cc:254 NCCL WARN Cuda failure "
       "401 "
       "'the operation cannot be performed in the present state'",
       "comm.nvls_failure"},
      {"h:1:2 [0] enqueue.cc:100 NCCL WARN Cuda failure 'out of memory'", "comm.cuda_error"},
      {"h:1:2 [0] init.cc:748 NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on CUDA "
       "device 1a000",
       "comm.duplicate_gpu"},
      {"> DESKTOP:36629:36635 [0] graph/xml.cc:332 NCCL WARN Could not find real path of "
       "/sys/bus/pci/x",
       "comm.topology_error"},
      // A verbs call's errno text is not a TCP connect's (NVIDIA/nccl-tests#185).
      {"d:1:2 [0] misc/ibvwrap.cc:187 NCCL WARN Call to ibv_modify_qp failed with error Network "
       "is unreachable",
       "comm.ib_error"},
      {"h:1:2 [3] include/alloc.h:185 NCCL WARN Failed to CUDA calloc 6291456 bytes",
       "comm.cuda_error"},
      // Without a no-space line the segment error says nothing of /dev/shm's size
      // (NVIDIA/nccl#1518: a CUDA failure came first).
      {"[1] misc/shmutils.cc:114 NCCL WARN Error while creating shared memory segment "
       "/dev/shm/nccl-NzwJ7O (size 9637888)",
       "comm.nccl_warn"},
      {"h:1:2 [0] proxy.cc:1519 NCCL WARN [Proxy Service 1] Failed to execute operation Connect "
       "from rank 1, retcode 2",
       "comm.nccl_warn"},
      {"h:1:2 [0] x.cc:1 NCCL WARN Something nobody has seen before", "comm.nccl_warn"},
  };
  for (const auto& c : cases) {
    auto fs = All(Parse(std::string(c.line) + "\n"));
    EXPECT_NE(Find(fs, c.id), nullptr) << c.line;
  }
  // ...and not as what their errno text alone would suggest.
  EXPECT_EQ(Find(All(Parse(std::string(cases[8].line) + "\n")), "comm.bootstrap_failure"), nullptr);
  EXPECT_EQ(Find(All(Parse(std::string(cases[10].line) + "\n")), "comm.shm_too_small"), nullptr);
  const auto proxy_findings = All(Parse(std::string(cases[11].line) + "\n"));
  const Finding* proxy = Find(proxy_findings, "comm.nccl_warn");
  ASSERT_NE(proxy, nullptr);
  EXPECT_NE(proxy->detail.find("proxy thread"), std::string::npos) << proxy->detail;
  // Benign: rdma-core missing on a host without RDMA.
  auto benign =
      All(Parse("h:1:2 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]\n"));
  EXPECT_TRUE(benign.empty());
}

// ibv_modify_qp by errno: no path to the peer's NIC (110, 101, 113: NVIDIA/nccl#2013), an empty
// local GID (61), anything else the generic GID/port causes.
TEST(NcclLogAnalysis, ModifyQpErrnoNamesItsCause) {
  struct Case {
    const char* error;
    const char* detail;
  } cases[] = {
      {"110 Connection timed out, on dev mlx5_0:1, curr state INIT, next state RTR",
       "cannot reach the peer's NIC"},
      {"101 Network is unreachable, on dev usb4_rdma0:1, curr state INIT, next state RTR",
       "cannot reach the peer's NIC"},
      {"61 No data available, on dev rocep1s0f0:1, curr state INIT, next state RTR",
       "local GID is empty"},
      {"22 Invalid argument, on dev mlx5_0:1", "wrong GID index or port"},
  };
  for (const auto& c : cases) {
    auto fs = All(Parse(std::string("h:1:2 [0] misc/ibvwrap.cc:262 NCCL WARN Call to "
                                    "ibv_modify_qp failed with ") +
                        c.error + "\n"));
    const Finding* f = Find(fs, "comm.ib_error");
    ASSERT_NE(f, nullptr) << c.error;
    EXPECT_NE(f->detail.find(c.detail), std::string::npos) << c.error << ": " << f->detail;
  }
}

TEST(NcclLogAnalysis, CompletionStatusIsExplained) {
  auto fs = All(Parse(
      "w:946:988 [0] transport/net_ib.cc:839 NCCL WARN NET/IB : Got completion with error 12, "
      "opcode 1, len 0, vendor err 129\n"));
  const Finding* f = Find(fs, "comm.ib_error");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->fix.find("NCCL_IB_GID_INDEX"), std::string::npos);
}

TEST(NcclLogAnalysis, PeerClosedAfterOwnErrorIsFallout) {
  auto fs = All(Parse(
      "g:18553:18611 [0] include/socket.h:360 WARN Call to connect failed : Connection timed out\n"
      "g:18553:18612 [0] include/socket.h:371 WARN Connection closed by remote peer\n"));
  ASSERT_NE(Find(fs, "comm.bootstrap_failure"), nullptr);
  EXPECT_EQ(Find(fs, "comm.bootstrap_failure")->severity, Severity::kError);
  ASSERT_NE(Find(fs, "comm.remote_exited"), nullptr);
  // Its own process failed first: the closed connection is told, not raised.
  EXPECT_EQ(Find(fs, "comm.remote_exited")->severity, Severity::kInfo);
}

// NVIDIA/nccl#952 (lines as posted): a process's proxy fails a connection over the socket
// transport, then sees its connection closed. The proxy's failure is that process's first error
// though its rule is fallout of an earlier one when there is one: the closed connection is then
// its fallout, not a crashed peer, and not the root cause.
TEST(NcclLogAnalysis, ProxyConnectFailureFirstMakesTheClosedConnectionFallout) {
  const std::string log =
      "c:922:1158 [3] proxy.cc:1485 NCCL WARN [Service thread] Error encountered progressing "
      "operation=Connect, res=2, closing connection\n"
      "c:922:1158 [3] proxy.cc:1519 NCCL WARN [Proxy Service 11] Failed to execute operation "
      "Connect from rank 11, retcode 2\n"
      "c:922:1149 [3] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote "
      "peer c.ibnet<53735>\n";
  auto fs = All(Parse(log));
  const Finding* proxy = Find(fs, "comm.nccl_warn");
  ASSERT_NE(proxy, nullptr);
  EXPECT_EQ(proxy->severity, Severity::kWarning);
  EXPECT_NE(proxy->detail.find("proxy thread failed an operation"), std::string::npos)
      << proxy->detail;
  const Finding* closed = Find(fs, "comm.remote_exited");
  ASSERT_NE(closed, nullptr);
  EXPECT_EQ(closed->severity, Severity::kInfo);
  EXPECT_NE(closed->detail.find("follows an earlier error of the same process"), std::string::npos);
}

// A closed connection with no other error in the inputs: NCCL's ncclRemoteError covers a network
// that dropped it as well as a peer that exited (NVIDIA/nccl#2076: InfiniBand trouble on some
// nodes), so the finding names both and the fix the peer host's links. With the peer's own error
// in the log, the closed connection is that error's fallout and says nothing of the network.
TEST(NcclLogAnalysis, PeerClosedWithNoOtherErrorMayBeTheNetwork) {
  const std::string reset =
      "h:7:9 [0] misc/socket.cc:50 NCCL WARN socketProgressOpt: Call to recv from "
      "10.1.2.3<33759> failed : Connection reset by peer\n";
  auto alone = All(Parse(reset));
  const Finding* f = Find(alone, "comm.remote_exited");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->title, "A peer process exited, or the network dropped the connection");
  EXPECT_NE(f->detail.find("the network dropped the connection"), std::string::npos) << f->detail;
  EXPECT_NE(f->fix.find("of its host (10.1.2.3)"), std::string::npos) << f->fix;
  EXPECT_NE(f->fix.find("`ibstat`"), std::string::npos) << f->fix;
  EXPECT_NE(f->fix.find("`ip -s link`"), std::string::npos) << f->fix;
  auto with_cause = All(
      Parse(reset + "g:5:6 [0] include/alloc.h:228 NCCL WARN Cuda failure 2 'out of memory'\n"));
  f = Find(with_cause, "comm.remote_exited");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->detail.find("network"), std::string::npos) << f->detail;
  EXPECT_EQ(f->fix.find("ibstat"), std::string::npos) << f->fix;
}

// Lines of examples/nodes2_oom_then_remote_exit (two processes, one a node): the process that
// ran out of memory is rank 1 of the world communicator, and the finding says so; a warning
// raised by two processes names no rank.
TEST(NcclLogAnalysis, AWarningOfOneProcessIsItsRanks) {
  const std::string init =
      "vm:2196:2196 [0] NCCL INFO ncclCommInitRankConfig comm 0x1 rank 0 nranks 2 cudaDev 0 "
      "nvmlDev 0 busId 60 commId 0xf85c - Init START\n"
      "vm:2197:2197 [0] NCCL INFO ncclCommInitRankConfig comm 0x2 rank 1 nranks 2 cudaDev 0 "
      "nvmlDev 0 busId 60 commId 0xf85c - Init START\n";
  auto fs = All(Parse(init +
                      "vm:2197:2197 [0] include/alloc.h:228 NCCL WARN Cuda failure 2 'out of "
                      "memory'\n"));
  const Finding* oom = Find(fs, "comm.cuda_error");
  ASSERT_NE(oom, nullptr);
  ASSERT_TRUE(oom->rank.has_value());
  EXPECT_EQ(*oom->rank, 1);
  EXPECT_NE(oom->detail.find("from 1 process, rank 1"), std::string::npos) << oom->detail;
  auto both = All(Parse(init +
                        "vm:2196:2196 [0] include/alloc.h:228 NCCL WARN Cuda failure 2 'out of "
                        "memory'\n"
                        "vm:2197:2197 [0] include/alloc.h:228 NCCL WARN Cuda failure 2 'out of "
                        "memory'\n"));
  ASSERT_NE(Find(both, "comm.cuda_error"), nullptr);
  EXPECT_FALSE(Find(both, "comm.cuda_error")->rank.has_value());
}

TEST(NcclLogAnalysis, SuspiciousInterfaceNames) {
  EXPECT_EQ(SuspiciousInterface("eth0", "10.0.0.1"), "");
  EXPECT_EQ(SuspiciousInterface("lo", "127.0.0.1"), "loopback");
  EXPECT_NE(SuspiciousInterface("virbr0", "192.168.122.1"), "");
  EXPECT_NE(SuspiciousInterface("veth6163fba", "fe80::b878:6cff:fe52:abe2%veth6163fba"), "");
  EXPECT_EQ(SuspiciousInterface("veth0", "2a02:6b8:fc1d:3606:0:4457:edef:600a"), "");
  EXPECT_NE(SuspiciousInterface("ens5", "fe80::1%ens5"), "");
  EXPECT_EQ(CompareVersions("2.19.3", "2.20"), -1);
  EXPECT_EQ(CompareVersions("2.28.9", "2.28.9"), 0);
}

TEST(NcclLogAnalysis, NetworkStacksDifferAcrossHosts) {
  auto fs =
      All(Parse("a:1:1 [0] NCCL INFO NET/Plugin: Loaded net plugin NCCL RDMA Plugin v8 (v8)\n"
                "a:1:1 [0] NCCL INFO Using network IBext_v8\n"
                "b:2:2 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal "
                "implementation\n"
                "b:2:2 [0] NCCL INFO Using network IB\n"));
  ASSERT_NE(Find(fs, "comm.net_plugin_mismatch"), nullptr);
  // A line missing on one host (an excerpt) is not a mismatch.
  auto partial =
      All(Parse("a:1:1 [0] NCCL INFO Using network IB\n"
                "b:2:2 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so)\n"));
  EXPECT_EQ(Find(partial, "comm.net_plugin_mismatch"), nullptr);
}

TEST(NcclLogAnalysis, OneNicUsedNeedsTwoRanksOfAHost) {
  std::string lists =
      "h:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0> [1]eth1:10.0.1.1<0>\n";
  auto one_rank =
      All(Parse(lists +
                "h:1:1 [0] NCCL INFO Ring 00 : 3[b01000] -> 4[201000] [send] via NET/Socket/0\n"
                "h:1:1 [0] NCCL INFO Ring 01 : 3[b01000] -> 4[201000] [send] via NET/Socket/0\n"));
  EXPECT_EQ(Find(one_rank, "comm.multi_nic_underused"), nullptr);
  auto two_ranks =
      All(Parse(lists +
                "h:1:1 [0] NCCL INFO Ring 00 : 3[b01000] -> 4[201000] [send] via NET/Socket/0\n"
                "h:1:2 [2] NCCL INFO Ring 01 : 0[201000] -> 2[a01000] [send] via NET/Socket/0\n"));
  ASSERT_NE(Find(two_ranks, "comm.multi_nic_underused"), nullptr);
}

TEST(NcclLogAnalysis, GraphFallbackAndOldNcclWithoutPeermem) {
  auto fs = All(Parse(
      "x:1:1 [0] NCCL INFO Could not find a path for pattern 4, falling back to simple order\n"));
  ASSERT_NE(Find(fs, "comm.topology_error"), nullptr);
  EXPECT_EQ(Find(fs, "comm.topology_error")->severity, Severity::kWarning);
  auto old = All(Parse(
      "x:1:1 [0] NCCL INFO NCCL version 2.10.3+cuda11.4\n"
      "x:1:1 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)\n"));
  ASSERT_NE(Find(old, "comm.gdr_disabled"), nullptr);
  ASSERT_NE(Find(old, "comm.nccl_too_old"), nullptr);
}

}  // namespace
}  // namespace commdx::analysis
