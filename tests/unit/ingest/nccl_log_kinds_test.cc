// One test per NCCL line kind, through the importer (so the dispatcher is exercised too). Every
// input is a real line from tests/data/nccl_log_fixtures, the 2xH200 reference log or the grammar.
#include <gtest/gtest.h>

#include "ingest/nccl_log/nccl_log_importer.h"
#include "unit/nccl_log_text.h"

namespace commdx {
namespace {

using nccl_log_test::Parse;

TEST(NcclLogKinds, VersionInfoLineAndBareBanner) {
  Job a = Parse(
      "vm:656:656 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\n"
      "vm:656:656 [0] NCCL INFO cudaDriverVersion 13000\n");
  ASSERT_EQ(a.nccl.processes.size(), 1u);
  EXPECT_EQ(a.nccl.processes[0].version, "2.28.9");
  EXPECT_EQ(a.nccl.processes[0].cuda_driver, 13000);
  // A bare banner in a file of one process belongs to that process.
  Job b = Parse(
      "ds-ml-01-0:17754:17754 [0] NCCL INFO NET/IB : No device found.\n"
      "NCCL version 2.4.8+cuda10.1\n");
  ASSERT_EQ(b.nccl.processes.size(), 1u);
  EXPECT_EQ(b.nccl.processes[0].version, "2.4.8");
  // Prose is not a banner.
  Job c = Parse("NCCL version 2.10.X\n");
  EXPECT_EQ(c.nccl.nccl_lines, 0u);
}

TEST(NcclLogKinds, CommInitEveryEra) {
  Job j = Parse(
      "vm:656:667 [0] NCCL INFO ncclCommInitRankConfig comm 0x55fa4b963350 rank 0 nranks 2 cudaDev "
      "0 "
      "nvmlDev 0 busId 60 commId 0x88a86db28df0013a - Init START\n"
      "vm:656:667 [0] NCCL INFO comm 0x55fa4b963350 rank 0 nRanks 2 nNodes 1 localRanks 2 "
      "localRank 0 "
      "MNNVL 0\n"
      "vm:656:667 [0] NCCL INFO ncclCommInitRankConfig comm 0x55fa4b963350 rank 0 nranks 2 cudaDev "
      "0 "
      "nvmlDev 0 busId 60 commId 0x88a86db28df0013a - Init COMPLETE\n");
  ASSERT_EQ(j.nccl.communicators.size(), 1u);
  const auto& c = j.nccl.communicators[0];
  EXPECT_EQ(c.comm_id, "0x88a86db28df0013a");
  EXPECT_EQ(c.nranks, 2);
  EXPECT_EQ(c.nnodes, 1);
  EXPECT_EQ(c.init_start, 1);
  EXPECT_EQ(c.init_complete, 1);
  ASSERT_EQ(c.ranks.count(0), 1u);
  EXPECT_EQ(c.ranks.at(0).bus_id, "60");
  EXPECT_EQ(c.ranks.at(0).nvml_dev, 0);
  EXPECT_EQ(c.ranks.at(0).local_rank, 0);

  // 2.5 - 2.16: no commId; the identity is size + order on the device.
  Job old = Parse(
      "swat1-04:2017630:2017630 [2] NCCL INFO comm 0x8dd01c0 rank 2 nranks 16 cudaDev 2 "
      "busId 48000 - Init COMPLETE\n");
  ASSERT_EQ(old.nccl.communicators.size(), 1u);
  EXPECT_EQ(old.nccl.communicators[0].comm_id, "nranks=16#0");
  EXPECT_EQ(old.nccl.communicators[0].ranks.at(2).bus_id, "48000");
}

TEST(NcclLogKinds, ConnectionLines) {
  Job j = Parse(
      "vm:656:675 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via P2P/CUMEM/read\n"
      "swat1-04:2017630:2017699 [5] NCCL INFO Channel 03/0 : 5[5] -> 12[4] [send] via NET/IB/3\n"
      "swat1-04:2017630:2017700 [4] NCCL INFO Channel 03/0 : 13[5] -> 4[4] [receive] via "
      "NET/IB/0(1)/GDRDMA\n"
      "gpu2-ru7:2144:2556 [2] NCCL INFO Ring 00 : 2[3d000] -> 3[3e000] via direct shared memory\n"
      "host:1:2 [0] NCCL INFO Ring 00 : 1 -> 0 [receive] via NET/Socket/0\n");
  ASSERT_EQ(j.nccl.communicators.size(), 1u);  // no init lines: the unidentified "?"
  const auto& c = j.nccl.communicators[0];
  EXPECT_FALSE(c.identified);
  ASSERT_EQ(c.connections.size(), 5u);
  const auto& p2p = c.connections[0];
  EXPECT_EQ(p2p.from_rank, 1);
  EXPECT_EQ(p2p.to_rank, 0);
  EXPECT_EQ(p2p.kind, TransportKind::kP2P);
  EXPECT_EQ(TransportShortName(p2p.transport), "P2P/CUMEM");
  const auto& ib = c.connections[1];
  EXPECT_EQ(ib.direction, 1);
  EXPECT_EQ(ib.net_dev, 3);
  EXPECT_FALSE(ib.gdr);
  const auto& pxn = c.connections[2];
  EXPECT_EQ(pxn.direction, 2);
  EXPECT_EQ(pxn.net_dev, 0);
  EXPECT_EQ(pxn.proxy_rank, 1);
  EXPECT_TRUE(pxn.gdr);
  EXPECT_EQ(TransportShortName(pxn.transport), "NET/IB+GDR");
  EXPECT_EQ(c.connections[3].kind, TransportKind::kShm);
  EXPECT_EQ(c.connections[3].from_id, "3d000");
  EXPECT_EQ(c.connections[4].kind, TransportKind::kNetSocket);
  EXPECT_EQ(c.nranks, 14);  // the largest rank seen + 1
  // The printer of a [receive] line is the receiver: rank 4 ran on swat1-04.
  EXPECT_EQ(c.ranks.at(4).host, "swat1-04");
}

TEST(NcclLogKinds, MalformedConnectionIsCountedNotDropped) {
  Job j = Parse("vm:656:675 [1] NCCL INFO Channel 00/0 : 1[1] -> zero via P2P/CUMEM/read\n");
  EXPECT_EQ(j.quality.Count(QualityFamily("nccl_log.malformed_"), "connection"), 1u);
  EXPECT_EQ(j.nccl.nccl_lines, 1u);
}

TEST(NcclLogKinds, RingsTreesAndChannelCounts) {
  Job j = Parse(
      "vm:656:667 [0] NCCL INFO ncclCommInitRankConfig comm 0x1 rank 0 nranks 2 cudaDev 0 busId 60 "
      "commId 0xabc - Init START\n"
      "vm:656:667 [0] NCCL INFO Channel 00/24 : 0 1\n"
      "vm:656:667 [0] NCCL INFO Channel 01/24 :    0   1\n"
      "vm:656:667 [0] NCCL INFO Trees [0] 1/-1/-1->0->-1 [1] 1/-1/-1->0->-1\n"
      "vm:656:667 [0] NCCL INFO 24 coll channels, 24 collnet channels, 0 nvls channels, 32 p2p "
      "channels, 32 p2p channels per peer\n");
  const auto& c = j.nccl.communicators.at(0);
  EXPECT_EQ(c.ring_channels, 24);
  ASSERT_EQ(c.rings.size(), 2u);
  EXPECT_EQ(c.rings[1], "0 1");
  EXPECT_EQ(c.trees.size(), 1u);
  EXPECT_EQ(c.coll_channels, 24);
  EXPECT_EQ(c.collnet_channels, 24);
  EXPECT_EQ(c.nvls_channels, 0);
  EXPECT_EQ(c.p2p_channels, 32);
  Job old = Parse("x:1:2 [0] NCCL INFO 2 coll channels, 2 p2p channels, 1 p2p channels per peer\n");
  EXPECT_EQ(old.nccl.communicators.at(0).coll_channels, 2);
  EXPECT_EQ(old.nccl.communicators.at(0).nvls_channels, -1);
}

TEST(NcclLogKinds, EnvOverrides) {
  Job j = Parse(
      "vm:656:668 [1] NCCL INFO NCCL_NVLS_ENABLE set by environment to 0.\n"
      "036260b61d3a:33347:33366 [6] NCCL INFO NCCL_ALGO set by environment to Tree,Ring,,NVLS\n"
      "[trainer3]:twshared1016:1958:1958 [3] NCCL INFO NCCL_SOCKET_IFNAME set to eth2\n");
  ASSERT_EQ(j.nccl.overrides.size(), 3u);
  EXPECT_EQ(j.nccl.overrides[0].name, "NCCL_NVLS_ENABLE");
  EXPECT_EQ(j.nccl.overrides[0].value, "0");  // the trailing '.' of integer params is dropped
  EXPECT_EQ(j.nccl.overrides[1].value, "Tree,Ring,,NVLS");
  EXPECT_EQ(j.nccl.overrides[2].value, "eth2");
  EXPECT_FALSE(j.nccl.overrides[0].from_command_line);
}

TEST(NcclLogKinds, NicListsOfEveryEra) {
  Job j = Parse(
      "NvYt:97:221 [0] NCCL INFO Bootstrap : Using [0]ip6tnl0:fe80::e866:19ff:fe1e:a688%ip6tnl0<0> "
      "[1]veth0:2a02:6b8:fc1d:3606:0:4457:edef:600a<0>\n"
      "NvYt:97:221 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB "
      "ib0:192.168.11.1<0>\n"
      "NvYt:97:221 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.34<0> [1]eth1:10.0.1.34<0>\n");
  ASSERT_EQ(j.nccl.nets.size(), 1u);
  const auto& nics = j.nccl.nets[0].nics;
  ASSERT_EQ(nics.size(), 7u);
  EXPECT_EQ(nics[0].role, "bootstrap");
  EXPECT_EQ(nics[0].name, "ip6tnl0");
  EXPECT_EQ(nics[0].address, "fe80::e866:19ff:fe1e:a688%ip6tnl0");
  EXPECT_EQ(nics[1].address, "2a02:6b8:fc1d:3606:0:4457:edef:600a");
  EXPECT_EQ(nics[2].role, "ib");
  EXPECT_EQ(nics[2].name, "mlx5_0");
  EXPECT_EQ(nics[2].port, 1);
  EXPECT_EQ(nics[3].link_layer, "RoCE");
  EXPECT_EQ(nics[4].role, "oob");
  EXPECT_EQ(nics[6].index, 1);
  EXPECT_EQ(nics[6].name, "eth1");
}

TEST(NcclLogKinds, NicListRewrappedOnePerLine) {
  Job j = Parse(
      "INFO NET/Socket : Using\n[0]bond0:192.168.1.161<0>\n[1]br-05ab815fa14e:172.19.0.1<0>\n"
      "[12]veth6163fba:fe80::b878:6cff:fe52:abe2%veth6163fba<0> \n");
  ASSERT_EQ(j.nccl.nets.size(), 1u);
  ASSERT_EQ(j.nccl.nets[0].nics.size(), 3u);
  EXPECT_EQ(j.nccl.nets[0].nics[2].name, "veth6163fba");
  EXPECT_EQ(j.nccl.nets[0].nics[2].index, 12);
}

TEST(NcclLogKinds, NetworkPluginGdrNvlsP2p) {
  Job j = Parse(
      "vm:656:667 [0] NCCL INFO NET/Plugin: Could not find: libnccl-net.so\n"
      "vm:656:667 [0] NCCL INFO NET/IB : No device found.\n"
      "vm:656:667 [0] NCCL INFO Using network Socket\n"
      "x:1:1 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)\n"
      "x:1:1 [0] NCCL INFO NVLS multicast support is not available on dev 0 (NVLS_NCHANNELS 0)\n"
      "x:1:1 [0] NCCL INFO P2P is disabled between connected GPUs 1 and 0. You can repress this "
      "message with NCCL_IGNORE_DISABLED_P2P=1.\n"
      "ip-192-168-16-255:25604:25604 [0] NCCL INFO NET/OFI Selected Provider is tcp;ofi_rxm\n");
  const auto* vm = j.nccl.FindNet("vm", 656);
  ASSERT_NE(vm, nullptr);
  EXPECT_EQ(vm->plugin, "internal");
  EXPECT_TRUE(vm->ib_no_device);
  EXPECT_EQ(vm->network, "Socket");
  const auto* x = j.nccl.FindNet("x", 1);
  ASSERT_NE(x, nullptr);
  ASSERT_EQ(x->gdr.size(), 1u);
  EXPECT_FALSE(x->gdr[0].enabled);
  EXPECT_EQ(x->gdr[0].hca, "mlx5_0");
  EXPECT_EQ(x->gdr[0].reason, "(no module)");
  EXPECT_EQ(j.nccl.NotesOfKind("nvls_unavailable").size(), 1u);
  EXPECT_EQ(j.nccl.NotesOfKind("p2p_disabled_connected").size(), 1u);
  EXPECT_EQ(j.nccl.FindNet("ip-192-168-16-255", 25604)->ofi_provider, "tcp;ofi_rxm");
}

TEST(NcclLogKinds, WarningsErrorReturnsAndFrameworkErrors) {
  Job j = Parse(
      "gpu2-ru7:2143:2561 [1] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space "
      "left on device\n"
      "gpu2-ru7:2143:2561 [1] NCCL INFO include/shm.h:41 -> 2\n"
      "gpu2-ru7:2143:2561 [1] NCCL INFO include/shm.h:41 -> 2\n"
      "[trainer0|0]:ncclInternalError: Internal check failed.\n"
      "[trainer0|0]:Last error:\n"
      "[trainer0|0]:ncclSocketInit: connecting to address  with family 59936 is neither AF_INET(2) "
      "nor AF_INET6(10)\n");
  ASSERT_EQ(j.nccl.warnings.size(), 2u);
  EXPECT_EQ(j.nccl.warnings[0].source_file, "include/shm.h:28");
  EXPECT_EQ(j.nccl.warnings[0].cuda_dev, 1);
  EXPECT_EQ(j.nccl.warnings[0].ref.loc.line, 1u);
  EXPECT_TRUE(j.nccl.warnings[1].from_framework);
  EXPECT_EQ(j.nccl.warnings[1].text.substr(0, 14), "ncclSocketInit");
  auto returns = j.nccl.NotesOfKind("error_return");
  ASSERT_EQ(returns.size(), 1u);  // identical lines are kept once, counted
  EXPECT_EQ(returns[0]->count, 2u);
  EXPECT_EQ(returns[0]->code, 2);
  auto codes = j.nccl.NotesOfKind("nccl_error_code");
  ASSERT_EQ(codes.size(), 1u);
  EXPECT_EQ(codes[0]->code, 3);
}

TEST(NcclLogKinds, CommandLineAssignmentsAndPastedLspci) {
  Job j = Parse(
      "root@ds-ml-01-0:~/nccl-tests# mpirun -x NCCL_SOCKET_IFNAME=lo -x NCCL_DEBUG=INFO -np 2 "
      "./build/all_reduce_perf\n"
      "                ACSCtl: SrcValid+ TransBlk- ReqRedir- CmpltRedir- UpstreamFwd-\n");
  ASSERT_EQ(j.nccl.overrides.size(), 1u);  // NCCL_DEBUG is not an override of behaviour
  EXPECT_EQ(j.nccl.overrides[0].value, "lo");
  EXPECT_TRUE(j.nccl.overrides[0].from_command_line);
  EXPECT_EQ(j.nccl.NotesOfKind("acs_srcvalid").size(), 1u);
  EXPECT_EQ(j.nccl.nccl_lines, 0u);  // evidence, but not NCCL output
}

TEST(NcclLogKinds, UnknownFutureKindIsANote) {
  Job j = Parse("vm:1:1 [0] NCCL INFO Quantum entanglement channels: 4 established\n");
  EXPECT_EQ(j.nccl.nccl_lines, 1u);
  ASSERT_EQ(j.quality.entries().size(), 1u);
  EXPECT_EQ(j.quality.entries()[0].id, "nccl_log.unknown_line");
  EXPECT_EQ(j.quality.entries()[0].severity, DiagSeverity::kNote);
  EXPECT_EQ(j.quality.entries()[0].first.line, 1u);
}

TEST(NcclLogKinds, BenignLinesAreKnown) {
  Job j = Parse(
      "vm:656:656 [0] NCCL INFO ENV/Plugin: Could not find: libnccl-env.so\n"
      "vm:656:668 [1] NCCL INFO 10 : GPU/0-60 GPU/0-70\n"
      "vm:656:667 [0] NCCL INFO     AllReduce |     8.0/  61.1 |    16.5/ 180.6 |\n"
      "vm:656:667 [0] NCCL INFO AllReduce: 8 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}\n"
      "vm:656:668 [1] NCCL INFO New proxy send connection 47 from local rank 1, transport 0\n");
  EXPECT_EQ(j.nccl.nccl_lines, 5u);
  EXPECT_TRUE(j.quality.empty());
}

TEST(NcclLogKinds, FrameworkErrorLineKeepsVersionAndCode) {
  Job j = Parse(
      "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:3780, "
      "unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.14.3\n"
      "x:1:1 [0] NCCL INFO Call to connect returned Connection timed out, retrying\n");
  // The only process of the file takes the version of a banner that names no process.
  ASSERT_EQ(j.nccl.processes.size(), 1u);
  EXPECT_EQ(j.nccl.processes[0].version, "2.14.3");
  auto codes = j.nccl.NotesOfKind("nccl_error_code");
  ASSERT_EQ(codes.size(), 1u);
  EXPECT_EQ(codes[0]->code, 2);
  EXPECT_EQ(j.nccl.NotesOfKind("connect_retry").size(), 1u);
}

}  // namespace
}  // namespace commdx
