// topo.numa_split (docs/findings/live.md) on nvidia-smi samples: a public 8x RTX 4090 paste
// (every pair SYS, GPUs 0-3 on NUMA 0, 4-7 on NUMA 1) and machines on one NUMA node or joined by
// NVLink across the sockets.
#include <gtest/gtest.h>

#include "analysis/topo_analyzers.h"
#include "ingest/load_inputs.h"

namespace commdx::analysis {
namespace {

Job LoadSmi(const std::string& name) {
  auto job = ingest::LoadInputs({std::string(COMMDX_SOURCE_DIR) + "/tests/data/smi/" + name}, {});
  EXPECT_TRUE(job);
  return job ? std::move(job).value() : Job{};
}

TEST(TopoNumaSplit, NamesTheGroupsOfThePublic4090Box) {
  Job job = LoadSmi("gpuallocator17-4090x8-sys-topo-m.txt");
  auto f = FindTopoNumaSplit(job, {});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "topo.numa_split");
  EXPECT_EQ(f[0].severity, Severity::kWarning);
  EXPECT_EQ(f[0].title,
            "GPUs sit on 2 NUMA nodes: GPUs 0-3 on NUMA node 0, GPUs 4-7 on NUMA node 1");
  EXPECT_NE(f[0].detail.find("16 of 28 GPU pairs lie across the split without NVLink (16x SYS)"),
            std::string::npos)
      << f[0].detail;
  EXPECT_NE(f[0].detail.find("Pairs within one group: 12x SYS"), std::string::npos);
  EXPECT_NE(f[0].detail.find("affinity columns are what tell the groups apart"), std::string::npos);
  // The CPU vendor is not in a topo -m paste: the path is not claimed.
  EXPECT_NE(f[0].detail.find("NCCL's path for such a pair: P2P or SHM"), std::string::npos);
  ASSERT_EQ(f[0].refs.size(), 3u);
  EXPECT_EQ(f[0].refs[0].text, "GPUs 0-3: NUMA node 0, CPU affinity 0-55,112-167");
  EXPECT_EQ(f[0].refs[0].where.line, 2u);  // GPU0's row
  EXPECT_EQ(f[0].refs[1].text, "GPUs 4-7: NUMA node 1, CPU affinity 56-111,168-223");
  EXPECT_EQ(f[0].refs[2].text, "GPU0-GPU4: SYS, across the split (and 15 more pairs)");
  EXPECT_NE(f[0].fix.find("CUDA_VISIBLE_DEVICES=0,1,2,3"), std::string::npos);
  EXPECT_NE(f[0].fix.find("tensor-parallel"), std::string::npos);
}

TEST(TopoNumaSplit, NotRaisedOnOneNodeOrWithNvLinkAcross) {
  // Two RTX 2080 Ti under one switch, both on NUMA node 1; two H200 on NUMA node 0.
  EXPECT_TRUE(FindTopoNumaSplit(LoadSmi("autodl-2080ti-topo-m-then-p2p-p.txt"), {}).empty());
  EXPECT_TRUE(FindTopoNumaSplit(LoadSmi("h200x2-topo-m.txt"), {}).empty());
  // Eight H100 on two NUMA nodes, every pair on NVLink: the sockets' link carries no GPU pair.
  EXPECT_TRUE(
      FindTopoNumaSplit(LoadSmi("nccl820-h100x8-topo-m-cells-run-together.txt"), {}).empty());
}

TEST(TopoNumaSplit, GroupsByCpuAffinityWhenNoNumaNodeIsGiven) {
  Job job = LoadSmi("gpuallocator17-4090x8-sys-topo-m.txt");
  for (auto& g : job.topo.gpus) g.numa_node.reset();
  auto f = FindTopoNumaSplit(job, {});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].title,
            "GPUs sit on 2 CPU sets: GPUs 0-3 on CPUs 0-55,112-167, GPUs 4-7 on CPUs "
            "56-111,168-223");
  // Affinity sets that overlap are no split.
  job.topo.gpus[4].cpu_affinity = "0-111";
  EXPECT_TRUE(FindTopoNumaSplit(job, {}).empty());
}

}  // namespace
}  // namespace commdx::analysis
