// `commdx diagnose` on nvidia-smi topo -m text (through the real binary): a public 8x RTX 4090
// paste whose GPUs sit on two NUMA nodes names the split as the root cause (as the condition
// most likely to matter: topology alone shows no symptom), and its pair table
// does not claim P2P where the input cannot tell (no CPU vendor in topo -m).
#include <gtest/gtest.h>

#include "unit/run_commdx.h"

namespace commdx {
namespace {

std::string Smi(const std::string& name) {
  return std::string(COMMDX_SOURCE_DIR) + "/tests/data/smi/" + name;
}

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(TopoNumaSplitCli, RootCauseAndPairTableOfThePublic4090Box) {
  auto r = test_util::RunCommdx("diagnose " + Smi("gpuallocator17-4090x8-sys-topo-m.txt"));
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(Has(r.out,
                  "Root cause: topo.numa_split (confidence 60%)\n"
                  "  No symptom in these inputs (topology only: nothing failed, nothing was "
                  "measured); the condition most likely to slow communication: GPUs sit on 2 "
                  "NUMA nodes: GPUs 0-3 on NUMA node 0, GPUs 4-7 on NUMA node 1."))
      << r.out;
  EXPECT_TRUE(Has(r.out, "[warning] topo.pcie_only")) << r.out;  // still listed beside it
  // GPU0-GPU4 crosses the sockets: not "P2P/PCIe", and the note says why.
  EXPECT_TRUE(Has(r.out, "GPU0-GPU4 PCIe (generation unknown) (SYS) U/U/U/U          P2P or SHM"))
      << r.out;
  EXPECT_FALSE(Has(r.out, "P2P/PCIe")) << r.out;
  EXPECT_TRUE(Has(r.out,
                  "P2P or SHM: path SYS crosses the CPU: the CPU vendor and NCCL version are not "
                  "in this input; NCCL 2.23 and later use SHM there with more than two GPUs"))
      << r.out;
  EXPECT_TRUE(Has(r.out, "GPU0-GPU4: SYS, NCCL P2P or SHM")) << r.out;  // pcie_only's evidence
  // The paste has no NIC legend: the matrix note names no NIC rather than "NIC0: , NIC1: ".
  EXPECT_FALSE(Has(r.out, "NIC0: ")) << r.out;
}

TEST(TopoNumaSplitCli, OneNumaNodeHasNoSplit) {
  auto r = test_util::RunCommdx("diagnose " + Smi("autodl-2080ti-topo-m-then-p2p-p.txt"));
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_FALSE(Has(r.out, "topo.numa_split")) << r.out;
}

}  // namespace
}  // namespace commdx
