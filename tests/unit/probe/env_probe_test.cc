// The environment probe on the fake pcie4 tree, and the env_* analyzers.
#include "probe/env_probe.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "analysis/env_analyzers.h"
#include "analysis/env_nccl_vars.h"
#include "analysis/registry.h"
#include "model/cuda_version.h"
#include "model/nccl_version.h"

namespace commdx {
namespace {

std::string Tree(const std::string& name) {
  return std::string(COMMDX_SOURCE_DIR) + "/tests/data/sysfs/" + name;
}

EnvSnapshot ProbeFake(const std::string& tree, std::vector<std::string> environ) {
  probe::EnvProbeOptions o;
  o.root = Tree(tree);
  o.environ = std::move(environ);
  return probe::ProbeEnvironment(o);
}

std::vector<Finding> WithId(const std::vector<Finding>& all, const std::string& id) {
  std::vector<Finding> out;
  for (const auto& f : all)
    if (f.id == id) out.push_back(f);
  return out;
}

TEST(EnvProbe, FakeContainerNode) {
  EnvSnapshot e =
      ProbeFake("pcie4", {"NCCL_DEBUG=INFO", "PATH=/usr/bin:/opt/venv/bin", "HOME=/root",
                          "AWS_SECRET_ACCESS_KEY=x", "OMP_NUM_THREADS=16"});
  EXPECT_TRUE(e.captured);
  ASSERT_EQ(e.vars.size(), 2u);  // PATH, HOME and secrets are not kept
  EXPECT_EQ(e.vars[0].name, "NCCL_DEBUG");
  EXPECT_EQ(e.shm_total_bytes, 64ull << 20);
  EXPECT_EQ(e.shm_source, "/proc/mounts");
  EXPECT_EQ(e.memlock_soft_bytes, 65536u);
  EXPECT_TRUE(e.in_container);
  EXPECT_EQ(e.container_signs[0].what, "docker");
  EXPECT_EQ(e.driver_version, "550.54.15");
  EXPECT_TRUE(e.ib_present);
  EXPECT_EQ(e.peermem_loaded, false);
  EXPECT_EQ(e.iommu_enabled, true);
  EXPECT_EQ(e.iommu_mode, "DMA");
  EXPECT_EQ(e.kernel_iommu_args, "intel_iommu=on");
  EXPECT_EQ(e.torch_version, "2.6.0+cu126");
  EXPECT_EQ(e.cuda_runtime_version, "12.6");
  EXPECT_NE(e.cuda_runtime_source.find("torch/version.py"), std::string::npos);
  ASSERT_EQ(e.nccl_libs.size(), 1u);  // offline: only the PyTorch one (no loader asked)
  EXPECT_EQ(e.nccl_libs[0].origin, NcclOrigin::kPytorch);
  EXPECT_EQ(e.nccl_libs[0].path,
            "/opt/venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2");
}

TEST(EnvProbe, CudaToolkitWithoutPyTorchAndUnlimitedMemlock) {
  EnvSnapshot e = ProbeFake("pcie4", {"PATH=/usr/bin"});
  EXPECT_EQ(e.cuda_runtime_version, "12.4.1");  // /usr/local/cuda/version.json
  EnvSnapshot n = ProbeFake("nogpu", {});
  EXPECT_EQ(n.memlock_soft_bytes, kUnlimited);
  EXPECT_EQ(n.shm_total_bytes, 8ull << 30);
  EXPECT_FALSE(n.in_container);
  EXPECT_FALSE(n.ib_present);
  EXPECT_TRUE(n.nccl_libs.empty());
}

TEST(EnvProbe, VenvOfTheBinaryWithoutActivation) {
  // `pip install commdx` into a venv puts the binary at <venv>/bin/commdx; run by its path, with
  // no VIRTUAL_ENV and no venv python on PATH, it still finds the venv's PyTorch and NCCL.
  namespace fs = std::filesystem;
  fs::path root = fs::path(::testing::TempDir()) / "commdx_venv_root";
  fs::remove_all(root);
  const fs::path site = root / "work/venv/lib/python3.12/site-packages";
  fs::create_directories(site / "torch");
  fs::create_directories(site / "nvidia/nccl/lib");
  fs::create_directories(root / "proc/self");
  std::ofstream(site / "torch/version.py") << "__version__ = '2.11.0+cu130'\ncuda: Optional[str] = "
                                              "'13.0'\n";
  std::ofstream(site / "nvidia/nccl/lib/libnccl.so.2") << "not a real library";
  fs::create_symlink("/work/venv/bin/commdx", root / "proc/self/exe");
  probe::EnvProbeOptions o;
  o.root = root.string();
  o.environ = {"PATH=/usr/bin"};
  EnvSnapshot v = probe::ProbeEnvironment(o);
  EXPECT_EQ(v.torch_version, "2.11.0+cu130");
  auto libs = probe::PytorchNcclCandidates(probe::SysRoot(root.string()), {"PATH=/usr/bin"});
  ASSERT_EQ(libs.size(), 1u);
  EXPECT_EQ(libs[0], "/work/venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2");
  // A binary outside any bin/ folder (a build tree) adds nothing.
  fs::remove(root / "proc/self/exe");
  fs::create_symlink("/work/commdx/build/commdx", root / "proc/self/exe");
  EXPECT_TRUE(probe::PytorchNcclCandidates(probe::SysRoot(root.string()), {}).empty());
  fs::remove_all(root);
}

TEST(EnvProbe, ParsersAndVersionCodes) {
  EXPECT_EQ(NcclVersionFromCode(22809), "2.28.9");
  EXPECT_EQ(NcclVersionFromCode(2708), "2.7.8");
  EXPECT_EQ(NcclVersionFromCode(0), "");
  EXPECT_EQ(CudaVersionString(12040), "12.4");  // cudaDriverGetVersion on a 12.4 driver
  EXPECT_EQ(CudaVersionString(13000), "13.0");
  EXPECT_EQ(CudaVersionString(0), "");
  EXPECT_EQ(CudaVersionFromCode(11080).major, 11);
  EXPECT_EQ(CudaVersionFromCode(11080).minor, 8);
  EXPECT_EQ(probe::ShmSizeFromMounts("none /dev/shm tmpfs rw,size=2g 0 0\n"), 2ull << 30);
  EXPECT_FALSE(probe::ShmSizeFromMounts("tmpfs /run tmpfs rw,size=64k 0 0\n"));
  EXPECT_EQ(probe::DriverVersionFromProc(
                "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  "
                "580.159.04  Release Build  (dvs-builder@U22)\nGCC version: 12\n"),
            "580.159.04");
  EXPECT_EQ(probe::DriverVersionFromProc("NVRM version: NVIDIA UNIX x86_64 Kernel Module  "
                                         "550.54.15  Tue Mar  5 22:23:56 UTC 2024"),
            "550.54.15");
  EXPECT_EQ(probe::DriverVersionFromProc("GCC version: 12.2.0"), "");
  EXPECT_FALSE(probe::KeepVariable("NVIDIA_REQUIRE_CUDA"));
  EXPECT_TRUE(probe::KeepVariable("NVIDIA_VISIBLE_DEVICES"));
  EXPECT_TRUE(probe::KeepVariable("TORCH_NCCL_BLOCKING_WAIT"));
  EXPECT_FALSE(probe::KeepVariable("GITHUB_TOKEN"));
}

TEST(EnvAnalyzers, ContainerLimitsAndRdma) {
  Job job;
  job.env = ProbeFake("pcie4", {"PATH=/usr/bin:/opt/venv/bin"});
  auto all = analysis::RunAnalyzers(job, {}, {Source::kEnv});
  auto shm = WithId(all, "env.shm_small");
  ASSERT_EQ(shm.size(), 1u);
  EXPECT_EQ(shm[0].severity, Severity::kError);
  EXPECT_NE(shm[0].fix.find("--ipc=host"), std::string::npos);
  EXPECT_EQ(WithId(all, "env.memlock").size(), 1u);
  EXPECT_EQ(WithId(all, "env.peermem_missing").size(), 1u);
  EXPECT_EQ(WithId(all, "env.iommu").size(), 1u);
  EXPECT_EQ(WithId(all, "env.container").size(), 1u);
  auto lib = WithId(all, "env.nccl_lib");
  ASSERT_EQ(lib.size(), 1u);
  EXPECT_EQ(lib[0].severity, Severity::kInfo);
  for (const auto& f : all) EXPECT_GT(f.method_step, 0) << f.id << " is not in the catalogue";
  // A healthy node: nothing but the library note.
  Job ok;
  ok.env = ProbeFake("nogpu", {});
  auto quiet = analysis::RunAnalyzers(ok, {}, {Source::kEnv});
  ASSERT_EQ(quiet.size(), 1u);
  EXPECT_EQ(quiet[0].id, "env.nccl_lib");
}

TEST(EnvAnalyzers, CudaRuntimeNewerThanDriver) {
  Job job;
  job.env.captured = true;
  job.env.cuda_runtime_version = "12.6";
  job.env.cuda_driver_version = 12040;
  auto f = WithId(analysis::FindEnvLibraries(job, {}), "env.cuda_driver_old");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kWarning);  // same major: minor-version compatibility
  job.env.cuda_runtime_version = "13.0";
  f = WithId(analysis::FindEnvLibraries(job, {}), "env.cuda_driver_old");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kError);
  job.env.cuda_driver_version = 13000;
  EXPECT_TRUE(WithId(analysis::FindEnvLibraries(job, {}), "env.cuda_driver_old").empty());
}

TEST(EnvAnalyzers, VisibleDevicesAndMig) {
  Job job;
  job.env.captured = true;
  for (int i = 0; i < 2; ++i) {
    Gpu& g = job.topo.GpuAt(i);
    g.uuid = "GPU-" + std::to_string(i) + "abc";
  }
  auto check = [&](const std::string& value) {
    job.env.vars = {{"CUDA_VISIBLE_DEVICES", value}};
    return WithId(analysis::FindEnvGpus(job, {}), "env.visible_devices");
  };
  EXPECT_TRUE(check("0,1").empty());
  EXPECT_TRUE(check("GPU-1a,0").empty());
  auto dup = check("1,1");
  ASSERT_EQ(dup.size(), 1u);
  EXPECT_NE(dup[0].title.find("listed twice"), std::string::npos);
  auto range = check("0,2,1");
  ASSERT_EQ(range.size(), 1u);
  EXPECT_NE(range[0].title.find("1 of 3 listed GPUs are visible"), std::string::npos)
      << range[0].title;
  EXPECT_EQ(check("").size(), 1u);
  EXPECT_EQ(check("GPU-9").size(), 1u);
  job.topo.gpus[1].mig_enabled = true;
  EXPECT_EQ(WithId(analysis::FindEnvGpus(job, {}), "env.mig").size(), 1u);
}

TEST(EnvAnalyzers, VariablesAndOmp) {
  Job job;
  job.env.captured = true;
  job.env.online_cpus = 32;
  job.env.vars = {{"NCCL_P2P_DISABLE", "1"}, {"NCCL_DEBUG", "INFO"},     {"NCCL_IB_DISABLE", "1"},
                  {"NCCL_PROTO", "Simple"},  {"NCCL_P2P_DISABLED", "1"}, {"OMP_NUM_THREADS", "16"},
                  {"LOCAL_WORLD_SIZE", "4"}};
  auto all = analysis::FindEnvVariables(job, {});
  auto vars = WithId(all, "env.nccl_override");
  ASSERT_EQ(vars.size(),
            3u);  // P2P_DISABLE harmful, PROTO risky, the typo; IB_DISABLE without IB: neutral
  EXPECT_EQ(vars[0].severity, Severity::kWarning);
  EXPECT_NE(vars[2].title.find("did you mean NCCL_P2P_DISABLE?"), std::string::npos)
      << vars[2].title;
  auto omp = WithId(all, "env.omp_oversubscribed");
  ASSERT_EQ(omp.size(), 1u);
  EXPECT_NE(omp[0].title.find("64 threads for 32 cores"), std::string::npos) << omp[0].title;
  EXPECT_NE(omp[0].fix.find("(8 here)"), std::string::npos);
  job.env.ib_present = true;
  EXPECT_EQ(analysis::ClassifyVariable("NCCL_IB_DISABLE", "1", job).risk,
            analysis::VarRisk::kHarmful);
  EXPECT_EQ(analysis::ClassifyVariable("NCCL_IB_DISABLE", "0", job).risk,
            analysis::VarRisk::kNeutral);
  EXPECT_EQ(analysis::ClassifyVariable("NCCL_MAX_NCHANNELS", "1", job).risk,
            analysis::VarRisk::kHarmful);
  EXPECT_EQ(analysis::ClassifyVariable("NCCL_MAX_NCHANNELS", "32", job).risk,
            analysis::VarRisk::kNeutral);
  EXPECT_EQ(analysis::ClassifyVariable("CUDA_LAUNCH_BLOCKING", "1", job).risk,
            analysis::VarRisk::kHarmful);
  EXPECT_FALSE(analysis::ClassifyVariable("NCCL_SOMETHING_NEW", "1", job).known);
  EXPECT_EQ(analysis::ClassifyVariable("NCCL_SOMETHING_NEW", "1", job).risk,
            analysis::VarRisk::kNeutral);
}

// Variables of NCCL's plugins and of container images are known, not "check the spelling"; the
// image's NCCL_VERSION is compared with the NCCL the job ran.
TEST(EnvVariables, PluginVariablesAndTheImagesNcclVersion) {
  Job job;
  for (const char* name : {"NCCL_PROFILER_PLUGIN", "NCCL_INSPECTOR_ENABLE",
                           "NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS",
                           "NCCL_PROFILE_EVENT_MASK", "NCCL_RAS_ENABLE", "NCCL_GIN_PLUGIN"}) {
    auto v = analysis::ClassifyVariable(name, "1", job);
    EXPECT_TRUE(v.known) << name;
    EXPECT_EQ(v.risk, analysis::VarRisk::kNeutral) << name;
    EXPECT_EQ(v.what.find("spelling"), std::string::npos) << name << ": " << v.what;
  }
  EXPECT_EQ(analysis::ClassifyVariable("NCCL_TUNER_CONFIG_FILE", "/x.conf", job).risk,
            analysis::VarRisk::kRisky);
  // Nothing says which NCCL ran: no comparison.
  auto plain = analysis::ClassifyVariable("NCCL_VERSION", "2.21.5", job);
  EXPECT_TRUE(plain.known);
  EXPECT_EQ(plain.what.find("is what runs"), std::string::npos) << plain.what;
  NcclProcess p;
  p.version = "2.28.9";
  job.nccl.processes.push_back(p);
  auto other = analysis::ClassifyVariable("NCCL_VERSION", "2.21.5", job);
  EXPECT_NE(other.what.find("ships NCCL 2.21.5, but NCCL 2.28.9 is what runs (the NCCL log)"),
            std::string::npos)
      << other.what;
  EXPECT_EQ(analysis::ClassifyVariable("NCCL_VERSION", "2.28.9", job).what.find("is what runs"),
            std::string::npos);
  NcclLibrary lib;
  lib.version = "2.27.3";
  lib.chosen = true;
  job.env.nccl_libs.push_back(lib);
  EXPECT_NE(analysis::ClassifyVariable("NCCL_VERSION", "2.28.9", job)
                .what.find("NCCL 2.27.3 is what runs (the library found here)"),
            std::string::npos);
}

}  // namespace
}  // namespace commdx
