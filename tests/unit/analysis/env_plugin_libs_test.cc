// Issue 42, first bug: a job run with NCCL_PROFILER_PLUGIN=.../libnccl-profiler-inspector.so had
// env.nccl_lib name the plugin as "the NCCL library". The environment dumps of that real run
// (tests/data/inspector_job) list both files as loaded.
#include <gtest/gtest.h>

#include <string>

#include "analysis/registry.h"
#include "ingest/load_inputs.h"
#include "model/environment.h"

namespace commdx {
namespace {

const std::string kJob = std::string(COMMDX_SOURCE_DIR) + "/tests/data/inspector_job/";
constexpr std::string_view kWheelNccl =
    "/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2";
constexpr std::string_view kInspector = "/work/main/devtools/libnccl-profiler-inspector.so";

TEST(NcclPluginKindOf, TellsPluginsFromNcclByFileName) {
  EXPECT_FALSE(NcclPluginKindOf(kWheelNccl));
  EXPECT_FALSE(NcclPluginKindOf("/usr/lib/x86_64-linux-gnu/libnccl.so"));
  EXPECT_FALSE(NcclPluginKindOf("libnccl.so.2.28.9"));
  EXPECT_FALSE(NcclPluginKindOf("/usr/lib/libncclx.so"));  // not "libnccl-": another library
  EXPECT_EQ(NcclPluginKindOf(kInspector), NcclPluginKind::kProfiler);
  // Names NCCL itself tries, and those aws-ofi-nccl installs (libnccl-net-ofi.so with the
  // links libnccl-net.so, libnccl-ofi-tuner.so, libnccl-tuner-ofi.so).
  EXPECT_EQ(NcclPluginKindOf("/opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so"),
            NcclPluginKind::kNet);
  EXPECT_EQ(NcclPluginKindOf("/opt/amazon/ofi-nccl/lib/libnccl-net-ofi.so"), NcclPluginKind::kNet);
  EXPECT_EQ(NcclPluginKindOf("/opt/aws-ofi-nccl/lib/libnccl-ofi-tuner.so"), NcclPluginKind::kTuner);
  EXPECT_EQ(NcclPluginKindOf("libnccl-tuner-ofi.so"), NcclPluginKind::kTuner);
  EXPECT_EQ(NcclPluginKindOf("libnccl-env.so"), NcclPluginKind::kEnv);
  EXPECT_EQ(NcclPluginKindOf("libnccl-gin.so"), NcclPluginKind::kGin);
  EXPECT_EQ(NcclPluginKindOf("libnccl-network.so"), NcclPluginKind::kOther);
}

TEST(EnvDumpLibraries, TheInspectorPluginIsAPluginNotTheNcclLibrary) {
  ingest::LoadOptions o;
  o.only = {InputKind::kEnvDump};
  auto job = ingest::LoadInputs({kJob + "env_rank0.json", kJob + "env_rank1.json"}, o);
  ASSERT_TRUE(job.has_value());
  const EnvSnapshot& e = job->env;
  ASSERT_EQ(e.nccl_libs.size(), 1u);
  EXPECT_EQ(e.nccl_libs[0].path, kWheelNccl);
  ASSERT_EQ(e.nccl_plugins.size(), 1u);  // both ranks loaded the same file: listed once
  EXPECT_EQ(e.nccl_plugins[0].path, kInspector);
  EXPECT_EQ(e.nccl_plugins[0].kind, NcclPluginKind::kProfiler);

  auto fs = analysis::RunAnalyzers(*job, {}, {Source::kEnv});
  const Finding* lib = nullptr;
  for (const auto& f : fs)
    if (f.id == "env.nccl_lib") lib = &f;
  ASSERT_NE(lib, nullptr);
  EXPECT_EQ(lib->title, "NCCL 2.28.9 from " + std::string(kWheelNccl));
  int plugin_refs = 0;
  for (const auto& r : lib->refs) {
    if (r.text.find(kInspector) == std::string::npos) continue;
    ++plugin_refs;
    EXPECT_EQ(r.text.rfind("profiler plugin", 0), 0u) << r.text;
    EXPECT_EQ(r.text.find("dlopen"), std::string::npos) << r.text;
  }
  EXPECT_EQ(plugin_refs, 1);
}

// A snapshot saved before plugins were told apart lists the plugin among the libraries, marked
// as loaded: the analyzer still does not take it for NCCL.
TEST(EnvDumpLibraries, APluginListedAsALibraryIsNeverChosen) {
  Job job;
  job.env.captured = true;
  job.env.nccl_libs_checked = true;
  job.env.nccl_libs.push_back({std::string(kWheelNccl), NcclOrigin::kProcess, "2.28.9", "", true});
  job.env.nccl_libs.push_back({std::string(kInspector), NcclOrigin::kProcess, "2.28.9", "", true});
  auto fs = analysis::RunAnalyzers(job, {}, {Source::kEnv});
  const Finding* lib = nullptr;
  for (const auto& f : fs)
    if (f.id == "env.nccl_lib") lib = &f;
  ASSERT_NE(lib, nullptr);
  EXPECT_EQ(lib->title, "NCCL 2.28.9 from " + std::string(kWheelNccl));
}

}  // namespace
}  // namespace commdx
