// The live topology probe against fake sysfs/proc trees (tests/data/sysfs, made by
// make_trees.py there) and a fake NVML.
#include <gtest/gtest.h>

#include "probe/gpu_source.h"
#include "probe/nvml_gpu_source.h"
#include "probe/sysfs_pci.h"
#include "probe/sysfs_system.h"
#include "probe/topology_probe.h"

namespace commdx::probe {
namespace {

std::string Tree(const std::string& name) {
  return std::string(COMMDX_SOURCE_DIR) + "/tests/data/sysfs/" + name;
}

// NVML as it would answer on the pcie4 box: four GPUs, no NVLink, P2P OK within a switch.
FakeGpuSource Pcie4Nvml() {
  FakeGpuSource f;
  f.system.driver_version = "550.54.15";
  f.system.cuda_driver_version = 12040;
  const char* bus[] = {"00000000:03:00.0", "00000000:04:00.0", "00000000:83:00.0",
                       "00000000:84:00.0"};
  for (int i = 0; i < 4; ++i) {
    RawDevice d;
    d.name = "NVIDIA L40S";
    d.uuid = "GPU-" + std::to_string(i);
    d.bus_id = bus[i];
    d.pcie_cur_gen = 4;
    d.pcie_max_gen = 4;
    d.pcie_cur_width = i == 1 ? 8 : 16;
    d.pcie_max_width = 16;
    d.clock_event_reasons = 0x1;  // idle
    f.devices.push_back(d);
  }
  f.pairs.assign(4, std::vector<RawPair>(4));
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b) {
      bool same_switch = a / 2 == b / 2;
      f.pairs[a][b].read = same_switch ? 0u : 1u;  // OK : CNS
      f.pairs[a][b].write = same_switch ? 0u : 1u;
      f.pairs[a][b].nvlink = 5u;  // NS
      f.pairs[a][b].common_ancestor = same_switch ? 10u : 50u;
    }
  f.processes.resize(4);
  f.processes[0] = {{1001, 1 << 30}};
  f.processes[1] = {{1002, 2u << 30}, {1003, ~0ULL}};
  return f;
}

TEST(ProbeSysfs, PciChainPathsAndLinks) {
  SysRoot root(Tree("pcie4"));
  auto g0 = ReadPciFunction(root, "0000:03:00.0");
  auto g1 = ReadPciFunction(root, "0000:04:00.0");
  auto g2 = ReadPciFunction(root, "0000:83:00.0");
  ASSERT_TRUE(g0 && g1 && g2);
  EXPECT_EQ(g0->chain.front(), "pci0000:00");
  EXPECT_EQ(g0->chain.size(), 5u);
  EXPECT_EQ(g0->vendor, kNvidiaVendor);
  EXPECT_EQ(g1->link.cur_width, 8);
  EXPECT_EQ(g1->link.max_gen, 4);
  EXPECT_EQ(g2->numa_node, 1);
  EXPECT_EQ(g2->local_cpulist, "16-31");
  EXPECT_EQ(ClassifyPciPath(*g0, *g1), PathType::kPix);
  EXPECT_EQ(ClassifyPciPath(*g0, *g2), PathType::kSys);
  auto br = BridgesBetween(*g0, *g1);
  ASSERT_EQ(br.size(), 3u);
  EXPECT_EQ(br[0], "0000:02:00.0");
  EXPECT_EQ(br[1], "0000:01:00.0");
  EXPECT_EQ(br[2], "0000:02:01.0");
  EXPECT_EQ(PcieGenFromSpeed("32.0 GT/s PCIe"), 5);
  EXPECT_EQ(PcieGenFromSpeed("8 GT/s"), 3);
  EXPECT_EQ(PcieGenFromSpeed("Unknown"), 0);
}

TEST(ProbeSysfs, AcsFromConfigSpace) {
  SysRoot root(Tree("pcie4"));
  PciBridge redirect = ReadBridge(root, "0000:02:00.0");
  EXPECT_TRUE(redirect.config_readable);
  EXPECT_TRUE(redirect.has_acs);
  EXPECT_TRUE(redirect.P2PRedirected());
  EXPECT_EQ(redirect.AcsText(),
            "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-");
  PciBridge plain = ReadBridge(root, "0000:02:01.0");
  EXPECT_TRUE(plain.has_acs);
  EXPECT_FALSE(plain.P2PRedirected());
  EXPECT_FALSE(ReadBridge(root, "0000:02:02.0").has_acs);  // no ACS capability in the list
  PciBridge hidden = ReadBridge(root, "0000:82:00.0");     // 64 bytes: not root
  EXPECT_FALSE(hidden.config_readable);
  EXPECT_EQ(hidden.AcsText(), "unreadable");
}

TEST(ProbeSysfs, NumaCpusAndNics) {
  SysRoot root(Tree("pcie4"));
  auto numa = ReadNumaNodes(root);
  ASSERT_EQ(numa.size(), 2u);
  EXPECT_EQ(numa[1].cpulist, "16-31");
  EXPECT_EQ(numa[0].mem_total_bytes, 131891130ull * 1024);
  EXPECT_EQ(ReadOnlineCpus(root), 32);
  auto nics = ReadNics(root);
  ASSERT_EQ(nics.size(), 2u);  // mlx5_0 (with ib0 folded in) and eno1; lo/docker0 are virtual
  EXPECT_EQ(nics[0].name, "mlx5_0");
  EXPECT_EQ(nics[0].kind, NicKind::kInfiniband);
  EXPECT_EQ(nics[0].bus_id, "0000:05:00.0");
  EXPECT_DOUBLE_EQ(nics[0].rate_gbit, 200);
  EXPECT_EQ(nics[0].state, "ACTIVE");
  ASSERT_EQ(nics[0].netdevs.size(), 1u);
  EXPECT_EQ(nics[0].netdevs[0], "ib0");
  EXPECT_EQ(nics[1].name, "eno1");
  EXPECT_DOUBLE_EQ(nics[1].rate_gbit, 1);
  EXPECT_EQ(nics[1].numa_node, 0);
}

TEST(ProbeTopology, FakeNvmlOnPcieBox) {
  FakeGpuSource nvml = Pcie4Nvml();
  ProbeOptions opt;
  opt.root = Tree("pcie4");
  Topology t = ProbeTopology(opt, &nvml, "");
  EXPECT_EQ(t.gpu_source, "nvml");
  EXPECT_EQ(t.host, "fakebox");
  EXPECT_EQ(t.cpu_vendor, "GenuineIntel");
  EXPECT_EQ(t.cuda_driver_version, 12040);
  ASSERT_EQ(t.gpus.size(), 4u);
  EXPECT_EQ(t.gpus[2].bus_id, "0000:83:00.0");
  EXPECT_EQ(t.gpus[2].numa_node, 1);  // from sysfs: NVML had none
  EXPECT_EQ(t.gpus[3].cpu_affinity, "16-31");
  EXPECT_EQ(t.gpus[1].pcie.cur_width, 8);
  ASSERT_EQ(t.pairs.size(), 6u);
  const GpuPair* p01 = t.FindPair(0, 1);
  EXPECT_EQ(p01->path, PathType::kPix);
  EXPECT_EQ(p01->nvlinks, 0);
  EXPECT_EQ(p01->p2p_read, P2PStatus::kOk);
  EXPECT_EQ(t.FindPair(1, 3)->path, PathType::kSys);
  EXPECT_EQ(t.FindPair(1, 3)->p2p_read, P2PStatus::kChipsetNotSupported);
  EXPECT_EQ(p01->bridges.size(), 3u);
  ASSERT_NE(t.FindBridge("0000:02:00.0"), nullptr);
  EXPECT_TRUE(t.FindBridge("0000:02:00.0")->P2PRedirected());
  ASSERT_EQ(t.nics.size(), 2u);
  ASSERT_EQ(t.nics[0].gpu_paths.size(), 4u);
  EXPECT_EQ(t.nics[0].gpu_paths[0], PathType::kPix);
  EXPECT_EQ(t.nics[0].gpu_paths[2], PathType::kSys);
  EXPECT_TRUE(t.processes_read);
  ASSERT_EQ(t.processes.size(), 3u);
  EXPECT_EQ(t.processes[0].cpus_allowed, "16-31");
  EXPECT_EQ(t.processes[0].rank, 0);
  EXPECT_EQ(t.processes[0].name, "python3");
  EXPECT_EQ(t.processes[2].gpu_index, 1);
  EXPECT_EQ(t.processes[2].used_memory_bytes, 0u);  // NVML's "not available"
  EXPECT_FALSE(t.processes[2].rank.has_value());
}

TEST(ProbeTopology, NvSwitchLinksMakeEveryPairNvLinked) {
  FakeGpuSource f;
  for (int i = 0; i < 3; ++i) {
    RawDevice d;
    d.name = "NVIDIA H100 80GB HBM3";
    d.bus_id = "0000:1" + std::to_string(i) + ":00.0";
    d.nvlink_speed_mbps = 26562;
    for (int l = 0; l < 18; ++l) {
      RawNvLink link;
      link.link = l;
      link.active = !(i == 2 && l >= 16);  // GPU2 has two links down
      link.remote_bus_id = "0000:c0:00.0";
      link.remote_type = 2;  // NVSwitch
      if (i == 1 && l == 0) link.replay = 12;
      d.nvlinks.push_back(link);
    }
    f.devices.push_back(d);
  }
  Topology t;
  AddNvmlGpus(f, t);
  EXPECT_EQ(t.FindPair(0, 1)->nvlinks, 18);
  EXPECT_EQ(t.FindPair(0, 2)->nvlinks, 16);
  EXPECT_EQ(t.FindPair(0, 2)->path, PathType::kNvLink);
  EXPECT_EQ(t.gpus[2].ActiveNvLinks(), 16);
  EXPECT_DOUBLE_EQ(t.gpus[0].nvlinks[0].speed_gbps, 26.562);
  EXPECT_EQ(t.gpus[0].nvlinks[0].version, 4);
  EXPECT_EQ(t.gpus[1].nvlinks[0].replay_errors, 12u);
  EXPECT_EQ(t.gpus[2].nvlinks[17].speed_gbps, 0);  // inactive: no speed
}

TEST(ProbeTopology, DirectNvLinksCountedPerPeer) {
  FakeGpuSource f;
  for (int i = 0; i < 2; ++i) {
    RawDevice d;
    d.name = "NVIDIA H200";
    d.bus_id = i == 0 ? "0000:18:00.0" : "0000:2a:00.0";
    for (int l = 0; l < 18; ++l)
      d.nvlinks.push_back(
          {l, true, 6, i == 0 ? "00000000:2A:00.0" : "00000000:18:00.0", 0u, {}, {}, {}, {}});
    f.devices.push_back(d);
  }
  Topology t;
  AddNvmlGpus(f, t);
  EXPECT_EQ(t.FindPair(0, 1)->nvlinks, 18);
  EXPECT_DOUBLE_EQ(t.gpus[0].nvlinks[3].speed_gbps, 26.562);  // by generation, no field value
}

TEST(ProbeTopology, WithoutNvmlGpusComeFromSysfsAndTheReasonIsKept) {
  ProbeOptions opt;
  opt.root = Tree("pcie4");
  Topology t = ProbeTopology(opt, nullptr, "libnvidia-ml.so.1 could not be loaded");
  EXPECT_EQ(t.gpu_source, "sysfs");
  EXPECT_EQ(t.nvml_error, "libnvidia-ml.so.1 could not be loaded");
  ASSERT_EQ(t.gpus.size(), 4u);
  EXPECT_EQ(t.gpus[0].name, "NVIDIA device 0x2331");
  EXPECT_EQ(t.gpus[1].pcie.cur_width, 8);
  EXPECT_EQ(t.FindPair(2, 3)->path, PathType::kPix);
  EXPECT_EQ(t.FindPair(0, 2)->path, PathType::kSys);
  EXPECT_EQ(t.driver_version, "550.54.15");  // /proc/driver/nvidia/version
  EXPECT_FALSE(t.processes_read);
}

TEST(ProbeTopology, MachineWithoutGpus) {
  ProbeOptions opt;
  opt.root = Tree("nogpu");
  Topology t = ProbeTopology(opt, nullptr, "no driver");
  EXPECT_TRUE(t.gpus.empty());
  EXPECT_EQ(t.numa.size(), 1u);
  EXPECT_EQ(t.online_cpus, 2);
  EXPECT_TRUE(t.nics.empty());  // eth0 has no PCI device
  EXPECT_EQ(t.cpu_vendor, "AuthenticAMD");
}

TEST(ProbeNvml, MissingLibraryIsAnEnvironmentError) {
  auto s = NvmlGpuSource::Open("libcommdx-no-such-nvml.so.1");
  ASSERT_FALSE(s);
  EXPECT_EQ(ExitCodeFor(s.error().code), 4);
  EXPECT_NE(s.error().message.find("could not be loaded"), std::string::npos);
}

TEST(ProbeNvml, RawCodesMapToModel) {
  EXPECT_EQ(P2PStatusFromNvml(0), P2PStatus::kOk);
  EXPECT_EQ(P2PStatusFromNvml(4), P2PStatus::kDisabledByRegKey);
  EXPECT_EQ(P2PStatusFromNvml(6), P2PStatus::kUnknown);
  EXPECT_EQ(PathFromNvmlAncestor(10), PathType::kPix);
  EXPECT_EQ(PathFromNvmlAncestor(20), PathType::kPxb);
  EXPECT_EQ(PathFromNvmlAncestor(30), PathType::kPhb);
  EXPECT_EQ(PathFromNvmlAncestor(40), PathType::kNode);
  EXPECT_EQ(PathFromNvmlAncestor(50), PathType::kSys);
  EXPECT_EQ(NvLinkGenerationFromNvml(6), 4);
  EXPECT_EQ(NvLinkGenerationFromNvml(4), 3);
  EXPECT_EQ(NvLinkGenerationFromNvml(99), 0);
}

}  // namespace
}  // namespace commdx::probe
