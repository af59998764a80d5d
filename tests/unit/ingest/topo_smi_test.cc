// The nvidia-smi text importers: topo -m, nvlink -s, topo -p2p.
#include <gtest/gtest.h>

#include "analysis/registry.h"
#include "base/file.h"
#include "ingest/load_inputs.h"
#include "ingest/registry.h"
#include "ingest/smi_topo/smi_matrix.h"
#include "ingest/smi_topo/smi_topo.h"

namespace commdx {
namespace {

std::string Data(const std::string& name) {
  return std::string(COMMDX_SOURCE_DIR) + "/tests/data/smi/" + name;
}

Job Load(const std::vector<std::string>& names) {
  std::vector<std::string> paths;
  for (const auto& n : names) paths.push_back(Data(n));
  auto job = ingest::LoadInputs(paths, {});
  EXPECT_TRUE(job) << (job ? "" : job.error().ToString());
  return job ? std::move(job).value() : Job{};
}

TEST(SmiTopo, RealH200MatrixAndNvlinkStatus) {
  Job job = Load({"h200x2-topo-m.txt", "h200x2-nvlink-s.txt"});
  ASSERT_EQ(job.inputs.size(), 2u);
  EXPECT_EQ(InputKindsName(job.inputs[0].kinds), "smi_topo");
  EXPECT_EQ(InputKindsName(job.inputs[1].kinds), "smi_nvlink");
  const Topology& t = job.topo;
  ASSERT_EQ(t.gpus.size(), 2u);
  ASSERT_EQ(t.pairs.size(), 1u);
  EXPECT_EQ(t.pairs[0].path, PathType::kNvLink);
  EXPECT_EQ(t.pairs[0].nvlinks, 18);
  EXPECT_EQ(t.gpus[1].cpu_affinity, "0-31");
  EXPECT_EQ(t.gpus[1].numa_node, 0);
  EXPECT_EQ(t.gpus[0].name, "NVIDIA H200");
  EXPECT_EQ(t.gpus[1].uuid, "GPU-c1a9aac7-13bf-e643-1ac8-6b2bad512073");
  ASSERT_EQ(t.gpus[0].nvlinks.size(), 18u);
  EXPECT_EQ(t.gpus[0].ActiveNvLinks(), 18);
  EXPECT_DOUBLE_EQ(t.gpus[0].nvlinks[17].speed_gbps, 26.562);
  EXPECT_EQ(t.gpus[0].nvlinks[0].version, 4);
  EXPECT_TRUE(job.quality.empty());
}

TEST(SmiTopo, RealSingleGpuMatrix) {
  // One GPU: a matrix of one cell, affinity columns, "N/A" GPU NUMA ID, ANSI header.
  Job job = Load({"h200x1-topo-m.txt"});
  ASSERT_EQ(job.inputs.size(), 1u);
  EXPECT_EQ(InputKindsName(job.inputs[0].kinds), "smi_topo");
  ASSERT_EQ(job.topo.gpus.size(), 1u);
  EXPECT_TRUE(job.topo.pairs.empty());
  EXPECT_EQ(job.topo.gpus[0].cpu_affinity, "0-15");
  EXPECT_EQ(job.topo.gpus[0].numa_node, 0);
  EXPECT_TRUE(job.quality.empty());
}

// The capture script's files (captures/system): "$ command" above, "[exit 0]" below, ANSI headers.
TEST(SmiTopo, RealCapturesWithCommandLines) {
  std::string dir = std::string(COMMDX_SOURCE_DIR) + "/captures/system/";
  std::vector<std::string> paths;
  for (const char* n :
       {"nvidia-smi-topo-m.txt", "nvidia-smi-nvlink-s.txt", "nvidia-smi-topo-p2p-r.txt",
        "nvidia-smi-topo-p2p-w.txt", "nvidia-smi-topo-p2p-n.txt", "nvidia-smi-topo-p2p-a.txt"})
    paths.push_back(dir + n);
  auto job = ingest::LoadInputs(paths, {});
  ASSERT_TRUE(job) << job.error().ToString();
  ASSERT_EQ(job->inputs.size(), 6u);
  EXPECT_EQ(InputKindsName(job->inputs[1].kinds), "smi_nvlink");
  EXPECT_EQ(InputKindsName(job->inputs[2].kinds), "smi_p2p");
  const Topology& t = job->topo;
  ASSERT_EQ(t.gpus.size(), 2u);
  EXPECT_EQ(t.gpus[0].ActiveNvLinks(), 18);
  const GpuPair* p = t.FindPair(0, 1);
  EXPECT_EQ(p->nvlinks, 18);
  EXPECT_EQ(p->p2p_read, P2PStatus::kOk);
  EXPECT_EQ(p->p2p_write, P2PStatus::kOk);
  EXPECT_EQ(p->p2p_nvlink, P2PStatus::kOk);
  EXPECT_NE(p->p2p_atomics, P2PStatus::kUnknown);
  EXPECT_TRUE(job->quality.empty());
}

TEST(SmiTopo, PcieOnlyBoxWithNicLegendAndAnsiHeader) {
  Job job = Load({"pcie8-topo-m.txt"});
  const Topology& t = job.topo;
  ASSERT_EQ(t.gpus.size(), 8u);
  EXPECT_EQ(t.pairs.size(), 28u);
  EXPECT_EQ(t.FindPair(0, 1)->path, PathType::kPix);
  EXPECT_EQ(t.FindPair(1, 2)->path, PathType::kNode);
  EXPECT_EQ(t.FindPair(7, 0)->path, PathType::kSys);
  EXPECT_EQ(t.FindPair(0, 7)->pcie_path, PathType::kSys);
  EXPECT_EQ(t.FindPair(0, 1)->nvlinks, 0);
  EXPECT_EQ(t.gpus[5].numa_node, 1);
  EXPECT_EQ(t.gpus[5].cpu_affinity, "32-63,96-127");
  ASSERT_EQ(t.nics.size(), 2u);
  EXPECT_EQ(t.nics[0].legend, "NIC0");
  EXPECT_EQ(t.nics[0].name, "mlx5_0");
  EXPECT_EQ(t.nics[1].name, "mlx5_1");
  ASSERT_EQ(t.nics[1].gpu_paths.size(), 8u);
  EXPECT_EQ(t.nics[1].gpu_paths[4], PathType::kPix);
  EXPECT_EQ(t.nics[1].gpu_paths[0], PathType::kSys);
  // The pair's location points at the GPU0 row (line 2).
  EXPECT_EQ(t.FindPair(0, 1)->loc.line, 2u);
}

// Matrices pasted in public threads have spaces where nvidia-smi wrote tabs, and may come
// without their legend: both were refused ("not a format", "no GPU matrix found").
TEST(SmiTopo, SpaceAlignedMatricesFromPublicThreads) {
  Job bare = Load({"nccl1608-h100nvl-topo-m-spaces.txt"});
  ASSERT_EQ(bare.inputs.size(), 1u);
  EXPECT_EQ(InputKindsName(bare.inputs[0].kinds), "smi_topo");
  const Topology& t = bare.topo;
  ASSERT_EQ(t.gpus.size(), 3u);
  EXPECT_EQ(t.FindPair(0, 1)->nvlinks, 12);
  EXPECT_EQ(t.FindPair(0, 2)->path, PathType::kSys);
  EXPECT_EQ(t.gpus[2].cpu_affinity, "16-31,48-63");
  EXPECT_EQ(t.gpus[2].numa_node, 1);
  EXPECT_TRUE(bare.quality.empty());

  Job nic = Load({"nccltests293-a100pcie-topo-spaces-with-log.txt"});
  ASSERT_EQ(nic.topo.gpus.size(), 2u);
  ASSERT_EQ(nic.topo.nics.size(), 1u);
  EXPECT_EQ(nic.topo.nics[0].name, "mlx5_0");
  ASSERT_EQ(nic.topo.nics[0].gpu_paths.size(), 2u);
  EXPECT_EQ(nic.topo.nics[0].gpu_paths[0], PathType::kSys);
  EXPECT_EQ(nic.topo.gpus[0].cpu_affinity, "24-47,72-95");
  for (const auto& d : nic.quality.entries())
    EXPECT_EQ(d.message.find("no GPU matrix"), std::string::npos) << d.message;
}

// NVIDIA/nccl#820 as posted: GPU0-GPU3's rows hold "NODENODE" (two cells run together), so
// each is one field short and its affinity slid into the NIC columns (GPU0's CPU affinity read
// as "0", mlx5_9 as "0-31,64-95"). The cells are split back and the affinity read from the end.
TEST(SmiTopo, CellsRunTogetherAreReadBackIntoColumns) {
  Job job = Load({"nccl820-h100x8-topo-m-cells-run-together.txt"});
  const Topology& t = job.topo;
  ASSERT_GE(t.gpus.size(), 6u);
  for (int g = 0; g < 4; ++g) {
    EXPECT_EQ(t.gpus[g].cpu_affinity, "0-31,64-95") << g;
    EXPECT_EQ(t.gpus[g].numa_node, 0) << g;
  }
  EXPECT_EQ(t.gpus[4].cpu_affinity, "32-63,96-127");
  ASSERT_EQ(t.nics.size(), 10u);
  EXPECT_EQ(t.nics[4].gpu_paths[0], PathType::kNode);  // mlx5_4, the first half of NODENODE
  EXPECT_EQ(t.nics[5].gpu_paths[0], PathType::kNode);  // mlx5_5, the second
  EXPECT_EQ(t.nics[9].gpu_paths[0], PathType::kSys);
  EXPECT_EQ(job.quality.Count("smi_topo.realigned_row"), 4u);
  EXPECT_EQ(job.quality.Count("smi_topo.unknown_cell"), 0u);
  EXPECT_EQ(job.quality.Count("smi_topo.short_row"), 0u);
}

TEST(SmiTopo, OldDriverLayoutNamesNicsByDevice) {
  Job job = Load({"a100x8-old-topo-m.txt"});
  const Topology& t = job.topo;
  ASSERT_EQ(t.gpus.size(), 8u);
  EXPECT_EQ(t.FindPair(2, 6)->nvlinks, 12);
  ASSERT_EQ(t.nics.size(), 2u);
  EXPECT_EQ(t.nics[0].name, "mlx5_0");
  EXPECT_EQ(t.nics[0].kind, NicKind::kInfiniband);
  EXPECT_EQ(t.nics[0].gpu_paths[3], PathType::kPxb);
  EXPECT_EQ(t.gpus[7].numa_node, 1);
}

TEST(SmiTopo, DegradedNvSwitchGpuAndInactiveLinks) {
  Job job = Load({"h100x8-nv16-topo-m.txt", "h100x8-nvlink-s.txt"});
  const Topology& t = job.topo;
  EXPECT_EQ(t.FindPair(3, 5)->nvlinks, 16);
  EXPECT_EQ(t.FindPair(2, 5)->nvlinks, 18);
  EXPECT_EQ(t.gpus[3].ActiveNvLinks(), 16);
  EXPECT_EQ(t.gpus[2].ActiveNvLinks(), 18);
  EXPECT_FALSE(*t.gpus[3].nvlinks[17].active);
  EXPECT_EQ(t.gpus[3].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(t.nics.size(), 4u);
}

TEST(SmiTopo, P2PCapabilityFromFileNameAndCommandLines) {
  Job job = Load({"pcie8-p2p-r.txt", "p2p-combined.txt"});
  ASSERT_EQ(job.inputs.size(), 2u);
  EXPECT_EQ(InputKindsName(job.inputs[0].kinds), "smi_p2p");
  const Topology& t = job.topo;
  EXPECT_EQ(t.FindPair(0, 3)->p2p_read, P2PStatus::kOk);
  EXPECT_EQ(t.FindPair(0, 4)->p2p_read, P2PStatus::kChipsetNotSupported);
  EXPECT_EQ(t.FindPair(0, 4)->p2p_write, P2PStatus::kUnknown);
  // The combined file is about GPUs 0 and 1 (write and atomics under their command lines).
  EXPECT_EQ(t.FindPair(0, 1)->p2p_write, P2PStatus::kOk);
  EXPECT_EQ(t.FindPair(0, 1)->p2p_atomics, P2PStatus::kNotSupported);
  EXPECT_EQ(job.quality.Count("smi_p2p.capability_unknown"), 0u);
}

// `topo -m` and `topo -p2p p` pasted together: each matrix read by its own importer, and P2P
// unsupported under one switch said in topo.pcie_only.
TEST(SmiTopo, TopoAndP2PMatricesInOnePasteAreEachReadOnce) {
  Job job = Load({"autodl-2080ti-topo-m-then-p2p-p.txt"});
  ASSERT_EQ(job.inputs.size(), 1u);
  EXPECT_EQ(InputKindsName(job.inputs[0].kinds), "smi_topo+smi_p2p");
  const GpuPair* p = job.topo.FindPair(0, 1);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->path, PathType::kPix);
  EXPECT_EQ(p->p2p_pci, P2PStatus::kNotSupported);
  EXPECT_EQ(job.quality.Count("smi_p2p.unknown_status"), 0u);
  EXPECT_EQ(job.quality.Count("smi_p2p.capability_unknown"), 0u);
  auto fs = analysis::RunAnalyzers(job, {}, {Source::kTopo});
  const Finding* f = nullptr;
  for (const auto& x : fs)
    if (x.id == "topo.pcie_only") f = &x;
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_NE(f->detail.find("P2P is not supported for 1 pair(s) under one PCIe switch"),
            std::string::npos)
      << f->detail;
}

TEST(SmiTopo, P2PWithoutCapabilityIsNotedAndReadAssumed) {
  FileText f{"/tmp/some-matrix.txt",
             "\tGPU0\tGPU1\n GPU0\tX\tTNS\t\n GPU1\tTNS\tX\t\n\nLegend:\n\n  X    = Self\n"
             "  OK   = Status Ok\n  CNS  = Chipset not supported\n"};
  ASSERT_TRUE(ingest::SniffSmiP2PMatrix(f.data));
  Job job;
  ASSERT_TRUE(ingest::ParseSmiP2PMatrix(f, job));
  EXPECT_EQ(job.topo.FindPair(0, 1)->p2p_read, P2PStatus::kTopologyNotSupported);
  EXPECT_EQ(job.quality.Count("smi_p2p.capability_unknown"), 1u);
}

TEST(SmiTopo, SniffersTellTheFormatsApart) {
  auto text = [](const std::string& n) { return ReadFile(Data(n))->data; };
  EXPECT_EQ(std::string(ingest::SniffImporter(text("pcie8-topo-m.txt"))->name()), "smi_topo");
  EXPECT_EQ(std::string(ingest::SniffImporter(text("pcie8-p2p-r.txt"))->name()), "smi_p2p");
  EXPECT_EQ(std::string(ingest::SniffImporter(text("h100x8-nvlink-s.txt"))->name()), "smi_nvlink");
  EXPECT_FALSE(ingest::SniffSmiTopoMatrix(text("pcie8-p2p-r.txt")));
  EXPECT_FALSE(ingest::SniffSmiNvlinkStatus("host:1:2 [0] NCCL INFO Bootstrap\n"));
}

TEST(SmiTopo, LegendWithoutMatrixIsAStructuralError) {
  auto f = ReadFile(Data("bad-legend-only.txt"));
  ASSERT_TRUE(f);
  Job job;
  auto st = ingest::ParseSmiTopoMatrix(*f, job);
  ASSERT_FALSE(st);
  EXPECT_EQ(ExitCodeFor(st.error().code), 3);
  EXPECT_NE(st.error().ToString().find("bad-legend-only.txt:1:1: error: no GPU matrix"),
            std::string::npos)
      << st.error().ToString();
}

TEST(SmiTopo, UnknownCellsAndShortRowsAreCounted) {
  FileText f{"m.txt",
             "\tGPU0\tGPU1\tGPU2\tCPU Affinity\tNUMA Affinity\n"
             "GPU0\t X \tNVX\tPIX\t0-7\t0\n"
             "GPU1\tNVX\t X \n"
             "GPU2\tPIX\tPHB\t X \t0-7\t0\n\nLegend:\n\n  X    = Self\n  NV#  = ...\n"};
  Job job;
  ASSERT_TRUE(ingest::ParseSmiTopoMatrix(f, job));
  EXPECT_EQ(job.quality.Count("smi_topo.unknown_cell"), 2u);
  EXPECT_EQ(job.quality.Count("smi_topo.short_row"), 1u);
  EXPECT_EQ(job.topo.FindPair(1, 2)->path, PathType::kPhb);
  ASSERT_NE(job.topo.FindPair(0, 1), nullptr);
  EXPECT_EQ(job.topo.FindPair(0, 1)->path, PathType::kUnknown);
}

TEST(SmiMatrix, StripsAnsiAndParsesCpuLists) {
  EXPECT_EQ(ingest::smi::StripAnsi("\x1b[4mGPU0\x1b[0m\tX"), "GPU0\tX");
  EXPECT_EQ(FormatCpuList(*ParseCpuList("0-3,8,9,10,12")), "0-3,8-10,12");
  EXPECT_FALSE(ParseCpuList("3-1"));
  EXPECT_FALSE(ParseCpuList("a"));
  EXPECT_EQ(NormalizeBusId("00000000:1B:00.0"), "0000:1b:00.0");
  EXPECT_EQ(NormalizeBusId("1b:00.0"), "0000:1b:00.0");
}

}  // namespace
}  // namespace commdx
