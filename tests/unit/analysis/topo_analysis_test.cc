// Expected bandwidth (docs/bench-method.md) and the topo_* analyzers, on nvidia-smi samples and on
// the fake pcie4 machine probed with a fake NVML.
#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/expected_bandwidth.h"
#include "analysis/registry.h"
#include "analysis/topo_analyzers.h"
#include "ingest/load_inputs.h"
#include "ingest/smi_topo/smi_topo.h"
#include "probe/gpu_source.h"
#include "probe/topology_probe.h"

namespace commdx::analysis {
namespace {

Job LoadSmi(const std::vector<std::string>& names) {
  std::vector<std::string> paths;
  for (const auto& n : names)
    paths.push_back(std::string(COMMDX_SOURCE_DIR) + "/tests/data/smi/" + n);
  auto job = ingest::LoadInputs(paths, {});
  EXPECT_TRUE(job);
  return job ? std::move(job).value() : Job{};
}

std::vector<Finding> WithId(const std::vector<Finding>& all, const std::string& id) {
  std::vector<Finding> out;
  for (const auto& f : all)
    if (f.id == id) out.push_back(f);
  return out;
}

// The fake 4-GPU PCIe box (tests/data/sysfs/pcie4) with NVML answers as in the probe tests.
Job Pcie4Job() {
  probe::FakeGpuSource f;
  const char* bus[] = {"0000:03:00.0", "0000:04:00.0", "0000:83:00.0", "0000:84:00.0"};
  for (int i = 0; i < 4; ++i) {
    probe::RawDevice d;
    d.name = "NVIDIA L40S";
    d.bus_id = bus[i];
    d.pcie_cur_gen = 4;
    d.pcie_max_gen = 4;
    d.pcie_cur_width = i == 1 ? 8 : 16;
    d.pcie_max_width = 16;
    d.clock_event_reasons = i == 3 ? 0x48 : 0x1;  // GPU3: HW slowdown + HW thermal
    f.devices.push_back(d);
  }
  f.pairs.assign(4, std::vector<probe::RawPair>(4));
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b) {
      f.pairs[a][b].read = a / 2 == b / 2 ? 0u : 1u;
      f.pairs[a][b].common_ancestor = a / 2 == b / 2 ? 10u : 50u;
    }
  f.processes = {{{1001, 1 << 30}}, {{1002, 1 << 30}, {1003, 1 << 29}}, {}, {}};
  probe::ProbeOptions opt;
  opt.root = std::string(COMMDX_SOURCE_DIR) + "/tests/data/sysfs/pcie4";
  Job job;
  job.topo = probe::ProbeTopology(opt, &f, "");
  return job;
}

TEST(ExpectedBandwidth, NvLinkGenerationsFollowTheTable) {
  Job h200 = LoadSmi({"h200x2-topo-m.txt", "h200x2-nvlink-s.txt"});
  ExpectedBandwidth e = ExpectedForPath(h200.topo, 0, 1);
  ASSERT_TRUE(e.known);
  EXPECT_EQ(e.nccl_path, NcclPath::kP2PNvLink);
  EXPECT_EQ(e.link, "NVLink4 x18");
  EXPECT_NEAR(e.line_rate_gbps, 478.1, 0.1);    // 18 x 26.562 as nvidia-smi reads
  EXPECT_NEAR(e.nccl_model_gbps, 370.8, 0.01);  // NCCL's 18 x 20.6
  // The measured 346 GB/s all_reduce on this machine lies in the typical range.
  EXPECT_LT(e.busbw_low_gbps, 346);
  EXPECT_GT(e.busbw_high_gbps, 346);

  LinkSpec a100;
  a100.gpu_name = "NVIDIA A100-SXM4-80GB";
  a100.nvlinks = 12;
  ExpectedBandwidth ea = ExpectedForLink(a100);
  EXPECT_DOUBLE_EQ(ea.line_rate_gbps, 300);
  EXPECT_LT(ea.busbw_low_gbps, 230);
  EXPECT_GT(ea.busbw_high_gbps, 230);
  LinkSpec b200;
  b200.gpu_name = "NVIDIA B200";
  b200.nvlinks = 18;
  EXPECT_DOUBLE_EQ(ExpectedForLink(b200).line_rate_gbps, 900);
}

TEST(ExpectedBandwidth, PciePathsAndShm) {
  LinkSpec s;
  s.pcie_gen = 4;
  s.pcie_width = 16;
  s.pcie_path = PathType::kPix;
  ExpectedBandwidth pix = ExpectedForLink(s);
  EXPECT_EQ(pix.nccl_path, NcclPath::kP2PPcie);
  EXPECT_DOUBLE_EQ(pix.line_rate_gbps, 32);
  EXPECT_DOUBLE_EQ(pix.nccl_model_gbps, 24);
  s.pcie_path = PathType::kSys;
  s.cpu = CpuVendor::kIntel;  // NCCL stops P2P at PXB on Intel: SHM
  ExpectedBandwidth sys = ExpectedForLink(s);
  EXPECT_EQ(sys.nccl_path, NcclPath::kShm);
  EXPECT_LT(sys.busbw_high_gbps, pix.busbw_low_gbps);
  s.cpu = CpuVendor::kAmd;  // two GPUs on AMD: P2P across the CPU
  EXPECT_EQ(ExpectedForLink(s).nccl_path, NcclPath::kP2PPcie);
  s.p2p_blocked = true;
  EXPECT_EQ(ExpectedForLink(s).nccl_path, NcclPath::kShm);
  s.pcie_gen = 5;
  s.pcie_width = 8;
  s.p2p_blocked = false;
  EXPECT_DOUBLE_EQ(ExpectedForLink(s).line_rate_gbps, 31.5);
  LinkSpec unknown;
  EXPECT_FALSE(ExpectedForLink(unknown).known);
}

TEST(ExpectedBandwidth, NcclP2PLevelAcrossTheCpuByVendor) {
  LinkSpec s;
  s.pcie_gen = 4;
  s.pcie_path = PathType::kSys;
  s.gpus = 8;
  EXPECT_EQ(ExpectedForLink(s).nccl_path, NcclPath::kP2POrShm);  // vendor unknown
  s.cpu = CpuVendor::kIntel;
  EXPECT_EQ(ExpectedForLink(s).nccl_path, NcclPath::kShm);
  s.cpu = CpuVendor::kArm;
  EXPECT_EQ(ExpectedForLink(s).nccl_path, NcclPath::kShm);
  s.cpu = CpuVendor::kAmd;  // SHM from NCCL 2.23 on, P2P before
  EXPECT_EQ(ExpectedForLink(s).nccl_path, NcclPath::kP2POrShm);
  s.nccl_version = NcclVersionCode("2.28.9");  // the job's NCCL decides it
  ExpectedBandwidth amd_new = ExpectedForLink(s);
  EXPECT_EQ(amd_new.nccl_path, NcclPath::kShm);
  EXPECT_NE(amd_new.nccl_path_why.find("NCCL 2.28.9 (the job's)"), std::string::npos)
      << amd_new.nccl_path_why;
  s.nccl_version = NcclVersionCode("2.21.5");
  EXPECT_EQ(ExpectedForLink(s).nccl_path, NcclPath::kP2PPcie);
  s.cpu = CpuVendor::kOther;
  EXPECT_EQ(ExpectedForLink(s).nccl_path, NcclPath::kP2PPcie);
  s.cpu = CpuVendor::kUnknown;  // before 2.23 the vendor still decides
  EXPECT_EQ(ExpectedForLink(s).nccl_path, NcclPath::kP2POrShm);
  s.nccl_version = NcclVersionCode("2.23.4");  // from 2.23.4: SHM with 8 GPUs on every CPU
  EXPECT_EQ(ExpectedForLink(s).nccl_path, NcclPath::kShm);
  s.cpu = CpuVendor::kAmd;
  s.nccl_version = 0;
  s.gpus = 2;  // AMD with two GPUs: P2P in every version
  EXPECT_EQ(ExpectedForLink(s).nccl_path, NcclPath::kP2PPcie);
  s.cpu = CpuVendor::kUnknown;
  ExpectedBandwidth two = ExpectedForLink(s);
  EXPECT_EQ(two.nccl_path, NcclPath::kP2POrShm);
  EXPECT_NE(two.nccl_path_why.find("P2P there on AMD"), std::string::npos) << two.nccl_path_why;
  s.pcie_path = PathType::kPxb;  // under PCIe switches: P2P on every CPU
  EXPECT_EQ(ExpectedForLink(s).nccl_path, NcclPath::kP2PPcie);
  s.gpu_name = "NVIDIA GeForce RTX 4090";  // no P2P from NVIDIA's driver unless the status says OK
  EXPECT_EQ(ExpectedForLink(s).nccl_path, NcclPath::kShm);
  s.p2p_ok = true;
  EXPECT_EQ(ExpectedForLink(s).nccl_path, NcclPath::kP2PPcie);
  EXPECT_EQ(NcclVersionCode("2.28.9"), 22809);
  EXPECT_EQ(NcclVersionCode("2.3.7"), 20307);
  EXPECT_EQ(NcclVersionCode("2.x"), 0);
  EXPECT_EQ(NcclVersionCode(""), 0);
  Job job;
  EXPECT_EQ(JobNcclVersion(job), 0);
  job.nccl.processes.resize(3);
  job.nccl.processes[0].version = "2.28.9";
  job.nccl.processes[2].version = "2.28.9";
  EXPECT_EQ(JobNcclVersion(job), 22809);  // a process without a version line does not count
  job.nccl.processes[1].version = "2.21.5";
  EXPECT_EQ(JobNcclVersion(job), 0);  // two versions in one job: none is the job's
  EXPECT_EQ(CpuVendorOf("GenuineIntel"), CpuVendor::kIntel);
  EXPECT_EQ(CpuVendorOf("AuthenticAMD"), CpuVendor::kAmd);
  EXPECT_EQ(CpuVendorOf("CentaurHauls"), CpuVendor::kZhaoxin);
  EXPECT_EQ(CpuVendorOf("HygonGenuine"), CpuVendor::kOther);
  EXPECT_EQ(CpuVendorOf(""), CpuVendor::kUnknown);
}

TEST(ExpectedBandwidth, JobTakesTheSlowestPair) {
  Job job = Pcie4Job();
  ExpectedBandwidth pair01 = ExpectedForPath(job.topo, 0, 1);
  EXPECT_EQ(pair01.nccl_path, NcclPath::kP2PPcie);
  EXPECT_DOUBLE_EQ(pair01.line_rate_gbps, 16);  // GPU1 runs x8
  ExpectedBandwidth pair02 = ExpectedForPath(job.topo, 0, 2);
  EXPECT_EQ(pair02.nccl_path, NcclPath::kShm);  // CNS across sockets
  ExpectedBandwidth whole = ExpectedForJob(job);
  ASSERT_TRUE(whole.known);
  EXPECT_NE(whole.basis.find("slowest of 6 GPU pairs"), std::string::npos);
  EXPECT_LE(whole.busbw_high_gbps, pair02.busbw_high_gbps);
  EXPECT_FALSE(ExpectedForJob(Job{}).known);
}

TEST(TopoAnalyzers, PcieOnlyAndExpectedBandwidthInEvidence) {
  Job job = LoadSmi({"pcie8-topo-m.txt"});
  auto f = FindTopoPcieOnly(job, {});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "topo.pcie_only");
  EXPECT_EQ(f[0].refs.size(), 28u);
  EXPECT_NE(f[0].detail.find("16x SYS"), std::string::npos) << f[0].detail;
  EXPECT_EQ(f[0].refs[0].where.line, 2u);  // GPU0 row of the file
  // An NVLink box has no such finding.
  EXPECT_TRUE(FindTopoPcieOnly(LoadSmi({"h200x2-topo-m.txt"}), {}).empty());
}

// A DGX-1's hybrid cube-mesh (NVIDIA/nccl-tests#37): each GPU has NVLink to four others, and
// NVLink alone joins all eight in a ring, so the SYS pairs carry no collective: info. The same
// matrix with one NVLink gone (GPU0-GPU1) leaves two GPUs with three peers: a warning.
TEST(TopoAnalyzers, CubeMeshRingIsInfoAndALostLinkIsNot) {
  const std::vector<std::string> rows = {"GPU0\t X \tNV1\tNV1\tNV2\tSYS\tSYS\tNV2\tSYS\t0-95",
                                         "GPU1\tNV1\t X \tNV2\tNV1\tSYS\tSYS\tSYS\tNV2\t0-95",
                                         "GPU2\tNV1\tNV2\t X \tNV2\tNV1\tSYS\tSYS\tSYS\t0-95",
                                         "GPU3\tNV2\tNV1\tNV2\t X \tSYS\tNV1\tSYS\tSYS\t0-95",
                                         "GPU4\tSYS\tSYS\tNV1\tSYS\t X \tNV2\tNV1\tNV2\t0-95",
                                         "GPU5\tSYS\tSYS\tSYS\tNV1\tNV2\t X \tNV2\tNV1\t0-95",
                                         "GPU6\tNV2\tSYS\tSYS\tSYS\tNV1\tNV2\t X \tNV1\t0-95",
                                         "GPU7\tSYS\tNV2\tSYS\tSYS\tNV2\tNV1\tNV1\t X \t0-95"};
  auto severity = [&rows](bool lose_one) {
    std::string text = "\tGPU0\tGPU1\tGPU2\tGPU3\tGPU4\tGPU5\tGPU6\tGPU7\tCPU Affinity\n";
    for (size_t i = 0; i < rows.size(); ++i) {
      std::string row = rows[i];
      if (lose_one && i < 2) row.replace(row.find("NV1"), 3, "SYS");
      text += row + "\n";
    }
    Job job;
    EXPECT_TRUE(ingest::ParseSmiTopoMatrix({"topo.txt", text}, job));
    auto f = WithId(FindTopoPcieOnly(job, {}), "topo.pcie_only");
    EXPECT_EQ(f.size(), 1u);
    return f.empty() ? Severity::kError : f[0].severity;
  };
  EXPECT_EQ(severity(false), Severity::kInfo);
  EXPECT_EQ(severity(true), Severity::kWarning);
}

TEST(TopoAnalyzers, NicTooFarForGpuDirectRdma) {
  // NVIDIA/nccl-tests#293 as posted: the NIC is SYS away from both GPUs.
  Job far = LoadSmi({"nccltests293-a100pcie-topo-spaces-with-log.txt"});
  auto fs = FindTopoNicFar(far, {});
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].id, "topo.nic_far");
  EXPECT_NE(fs[0].title.find("GPU0 and GPU1 reach their nearest RDMA NIC only through the CPU "
                             "(SYS)"),
            std::string::npos)
      << fs[0].title;
  EXPECT_NE(fs[0].detail.find("inter-socket"), std::string::npos);
  // The user allowed GPUDirect that far: nothing to say.
  far.env.vars.push_back({"NCCL_NET_GDR_LEVEL", "SYS"});
  EXPECT_TRUE(FindTopoNicFar(far, {}).empty());
  // A PCIe box whose NICs sit under the switches of GPUs 0,1 and 4,5: the others are NODE away.
  auto pcie = FindTopoNicFar(LoadSmi({"pcie8-topo-m.txt"}), {});
  ASSERT_EQ(pcie.size(), 1u);
  EXPECT_NE(pcie[0].title.find("GPU2, GPU3, GPU6 and GPU7"), std::string::npos) << pcie[0].title;
  EXPECT_EQ(pcie[0].detail.find("inter-socket"), std::string::npos);
  // An NVLink box with a NIC at PXB from every GPU, and a box without NICs.
  EXPECT_TRUE(FindTopoNicFar(LoadSmi({"a100x8-old-topo-m.txt"}), {}).empty());
  EXPECT_TRUE(FindTopoNicFar(LoadSmi({"h200x2-topo-m.txt"}), {}).empty());
}

TEST(TopoAnalyzers, NvLinkDegradedNamesTheGpu) {
  Job job = LoadSmi({"h100x8-nv16-topo-m.txt", "h100x8-nvlink-s.txt"});
  auto f = FindTopoNvlinkDegraded(job, {});
  ASSERT_EQ(f.size(), 1u);  // GPU3; the NV16 pairs are explained by it
  EXPECT_EQ(f[0].severity, Severity::kError);
  EXPECT_NE(f[0].title.find("GPU3"), std::string::npos);
  EXPECT_NE(f[0].detail.find("16, 17"), std::string::npos);
  // The matrix alone still shows it, by pair.
  auto pairs_only = FindTopoNvlinkDegraded(LoadSmi({"h100x8-nv16-topo-m.txt"}), {});
  ASSERT_EQ(pairs_only.size(), 1u);
  EXPECT_EQ(pairs_only[0].refs.size(), 7u);
  EXPECT_TRUE(
      FindTopoNvlinkDegraded(LoadSmi({"h200x2-topo-m.txt", "h200x2-nvlink-s.txt"}), {}).empty());
}

TEST(TopoAnalyzers, PcieDowntrainedAcsAndHealth) {
  Job job = Pcie4Job();
  auto down = FindTopoPcieDowntrained(job, {});
  ASSERT_EQ(down.size(), 1u);
  EXPECT_NE(down[0].title.find("GPU1"), std::string::npos);
  EXPECT_NE(down[0].title.find("Gen4 x8 of Gen4 x16"), std::string::npos) << down[0].title;
  auto acs = FindTopoAcsEnabled(job, {});
  ASSERT_EQ(acs.size(), 1u);
  EXPECT_NE(acs[0].detail.find("GPU0-GPU1"), std::string::npos);
  EXPECT_NE(acs[0].refs[0].text.find("0000:02:00.0"), std::string::npos);
  auto health = FindTopoHealth(job, {});
  ASSERT_EQ(health.size(), 1u);
  EXPECT_EQ(health[0].id, "health.throttled");
  EXPECT_NE(health[0].title.find("hw_slowdown,hw_thermal_slowdown"), std::string::npos);
  // Idle speed drop is not a fault: GPU0 at Gen1 while idle stays quiet.
  job.topo.gpus[0].pcie.cur_gen = 1;
  EXPECT_EQ(FindTopoPcieDowntrained(job, {}).size(), 1u);
  job.topo.gpus[0].clock_event_reasons = 0;  // busy now
  EXPECT_EQ(FindTopoPcieDowntrained(job, {}).size(), 2u);
}

TEST(TopoAnalyzers, PlacementAudit) {
  Job job = Pcie4Job();
  auto all = FindTopoPlacement(job, {});
  auto numa = WithId(all, "topo.cross_numa_rank");
  ASSERT_EQ(numa.size(), 1u);  // pid 1001: GPU0 on node 0, CPUs 16-31 on node 1
  EXPECT_EQ(numa[0].severity, Severity::kWarning);
  EXPECT_EQ(numa[0].rank, 0);
  EXPECT_NE(numa[0].fix.find("--cpunodebind=0"), std::string::npos);
  auto shared = WithId(all, "topo.gpu_shared");
  ASSERT_EQ(shared.size(), 1u);
  EXPECT_NE(shared[0].title.find("2 processes hold GPU1"), std::string::npos) << shared[0].title;
  auto overlap = WithId(all, "topo.cpu_overlap");
  ASSERT_EQ(overlap.size(), 1u);
  EXPECT_NE(overlap[0].title.find("4-7"), std::string::npos) << overlap[0].title;
}

TEST(TopoAnalyzers, ProcessOnTwoGpusIsComparedOnce) {
  Job job;
  job.topo.online_cpus = 32;
  for (int g : {0, 1}) job.topo.GpuAt(g);
  GpuProcess a{587, 0, "python3", 0, true, "0-3", "0", {}, {}};
  GpuProcess b{588, 0, "python3", 0, true, "2-5", "0", 1, 1};
  GpuProcess b_on_gpu1 = b;
  b_on_gpu1.gpu_index = 1;
  job.topo.processes = {b, a, b_on_gpu1};  // as NVML listed them on the 2xH200 machine
  auto f = FindTopoPlacement(job, {});
  EXPECT_EQ(WithId(f, "topo.cpu_overlap").size(), 1u);
  EXPECT_EQ(WithId(f, "topo.gpu_shared").size(), 1u);
}

TEST(TopoAnalyzers, NvLinkErrorCounters) {
  Job job = LoadSmi({"h200x2-topo-m.txt", "h200x2-nvlink-s.txt"});
  EXPECT_TRUE(FindTopoHealth(job, {}).empty());
  job.topo.gpus[1].nvlinks[4].crc_data_errors = 50;  // noisy counter: not a finding by itself
  EXPECT_TRUE(FindTopoHealth(job, {}).empty());
  job.topo.gpus[1].nvlinks[4].recovery_errors = 2;
  auto f = FindTopoHealth(job, {});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "health.nvlink_errors");
  EXPECT_NE(f[0].refs[0].text.find("link 4"), std::string::npos);
}

TEST(TopoAnalyzers, RegisteredWithCatalogueIds) {
  Job job = Pcie4Job();
  auto f = RunAnalyzers(job, {}, {Source::kTopo});
  EXPECT_GE(f.size(), 5u);
  for (const auto& x : f) {
    EXPECT_EQ(x.source, Source::kTopo);
    EXPECT_GT(x.method_step, 0) << x.id << " is not in the catalogue";
  }
  EXPECT_TRUE(RunAnalyzers(Job{}, {}, {Source::kTopo}).empty());
}

}  // namespace
}  // namespace commdx::analysis
