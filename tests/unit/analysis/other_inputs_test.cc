// Issue 22 items 8-10 on real inputs: multi-host NCCL logs compared host by host, sockets chosen
// by configuration or platform (warning) vs a fallback from RDMA (error), environment dumps that
// carry only some facts, and a public MTIA trace whose device activity commdx does not model.
#include <gtest/gtest.h>

#include <string>

#include "analysis/comm_analyzers.h"
#include "analysis/registry.h"
#include "ingest/env_dump/env_dump_importer.h"
#include "ingest/load_inputs.h"
#include "ingest/nccl_log/nccl_log_importer.h"

namespace commdx {
namespace {

const std::string kData = std::string(COMMDX_SOURCE_DIR) + "/tests/data/";

std::vector<Finding> Logs(const std::string& file) {
  ingest::LoadOptions o;
  o.only = {InputKind::kNcclLog};
  auto job = ingest::LoadInputs({kData + "nccl_logs_multihost/" + file}, o);
  EXPECT_TRUE(job.has_value()) << file;
  return job ? analysis::RunAnalyzers(*job, {}, {Source::kLogs}) : std::vector<Finding>{};
}

const Finding* Find(const std::vector<Finding>& fs, std::string_view id) {
  for (const auto& f : fs)
    if (f.id == id) return &f;
  return nullptr;
}

bool AnyError(const std::vector<Finding>& fs) {
  for (const auto& f : fs)
    if (f.severity == Severity::kError) return true;
  return false;
}

TEST(MultiHostLogs, PluginOnSomeHostsIsAnErrorNamingThem) {
  auto fs = Logs("nccl1634-hpcx-plugin-on-some-hosts.log");
  const Finding* f = Find(fs, "comm.net_plugin_mismatch");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_NE(f->title.find("HGX-H100-04"), std::string::npos) << f->title;
  EXPECT_NE(f->title.find("HGX-H100-11"), std::string::npos) << f->title;
  EXPECT_NE(f->title.find("internal"), std::string::npos) << f->title;
}

TEST(MultiHostLogs, SamePluginAnnouncedDifferentlyIsNoMismatch) {
  for (const char* file :
       {"nccl1357-h100-ibext-sharp-2nodes.log", "nccltests244-two-hosts-internal-plugin-ib.log"}) {
    auto fs = Logs(file);
    EXPECT_EQ(Find(fs, "comm.net_plugin_mismatch"), nullptr) << file;
    EXPECT_EQ(Find(fs, "comm.host_mismatch"), nullptr) << file;
    EXPECT_FALSE(AnyError(fs)) << file;
  }
}

TEST(MultiHostLogs, BootstrapFamiliesDifferAcrossHosts) {
  auto fs = Logs("nccl1291-gh200-bootstrap-ib0-ipv6-vs-bond0.log");
  const Finding* f = Find(fs, "comm.host_mismatch");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_NE(f->title.find("gh1"), std::string::npos) << f->title;
  EXPECT_NE(f->title.find("gh2"), std::string::npos) << f->title;
  EXPECT_NE(f->title.find("IPv6 link-local"), std::string::npos) << f->title;
}

TEST(MultiHostLogs, SocketOnlyClustersGetAWarningNotAnError) {
  for (const char* file :
       {"nccl226-aws-socket-only-cluster.log", "nccl447-gcp-socket-only-2nodes.log"}) {
    auto fs = Logs(file);
    const Finding* f = Find(fs, "comm.socket_fallback");
    ASSERT_NE(f, nullptr) << file;
    EXPECT_EQ(f->severity, Severity::kWarning) << file;
    EXPECT_NE(f->title.find("No RDMA device"), std::string::npos) << f->title;
    EXPECT_FALSE(AnyError(fs)) << file;
  }
}

Job ParseLog(const std::string& text) {
  FileText f;
  f.path = "t.log";
  f.data = text;
  Job job;
  ingest::ParseNcclLogText(f, job);
  return job;
}

const char* kTwoHostSockets =
    "a:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n"
    "a:1:1 [0] NCCL INFO Using network Socket\n"
    "b:2:2 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.2<0>\n"
    "b:2:2 [0] NCCL INFO Using network Socket\n";

TEST(SocketTransport, ConfiguredIsAWarningAFailedDeviceIsAnError) {
  auto configured = analysis::FindCommSocketFallback(
      ParseLog(std::string("a:1:1 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.\n") +
               kTwoHostSockets),
      {});
  ASSERT_EQ(configured.size(), 1u);
  EXPECT_EQ(configured[0].severity, Severity::kWarning);
  EXPECT_NE(configured[0].title.find("configuration"), std::string::npos);
  auto failed = analysis::FindCommSocketFallback(
      ParseLog(std::string("a:1:1 [0] misc/ibvwrap.cc:106 NCCL WARN Call to ibv_open_device "
                           "failed\n") +
               kTwoHostSockets),
      {});
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].severity, Severity::kError);
}

TEST(SocketTransport, HostsOnDifferentInterNodeTransports) {
  auto fs = analysis::FindCommHostMismatch(
      ParseLog("a:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA\n"
               "b:2:2 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [send] via NET/Socket/0\n"),
      {});
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_NE(fs[0].title.find("NET/Socket on b"), std::string::npos) << fs[0].title;
  EXPECT_NE(fs[0].title.find("NET/IB on a"), std::string::npos) << fs[0].title;
}

TEST(EnvDumpSniff, NeedsWhatMakesAFileAnEnvironmentDump) {
  EXPECT_TRUE(ingest::SniffEnvDump(R"({"environ": {"PATH": "/bin"}, "cpu_count": 8})"));
  EXPECT_TRUE(ingest::SniffEnvDump(R"({"hostname": "n1", "env": {"NCCL_DEBUG": "INFO"}})"));
  // A per-rank file of step times that also records a few settings is not an environment dump.
  EXPECT_FALSE(ingest::SniffEnvDump(
      R"({"rank": 0, "env": {"NCCL_DEBUG": "INFO"}, "unit": "ms", "step_ms": [16.7, 14.1]})"));
  EXPECT_FALSE(ingest::SniffEnvDump(R"({"environment": "prod", "step_ms": [1]})"));
  EXPECT_FALSE(ingest::SniffEnvDump(R"({"env": "INFO", "hostname": "x"})"));
}

Job EnvJob(const std::string& text) {
  FileText f;
  f.path = "env.json";
  f.data = text;
  Job job;
  EXPECT_TRUE(ingest::ParseEnvDump(f, job).has_value());
  return job;
}

TEST(EnvDump, FactsTheDumpDoesNotCarryAreNotFindings) {
  Job job = EnvJob(R"({"environ": {"NCCL_DEBUG": "INFO", "OMP_NUM_THREADS": "1"}})");
  EXPECT_FALSE(job.env.nccl_libs_checked);
  EXPECT_FALSE(job.env.platform_checked);
  auto fs = analysis::RunAnalyzers(job, {}, {Source::kEnv});
  EXPECT_EQ(Find(fs, "env.nccl_lib"), nullptr);
  EXPECT_EQ(Find(fs, "env.container"), nullptr);
  // A dump that lists the libraries its process loaded is checked for them.
  Job listed = EnvJob(R"({"environ": {}, "nccl_version": "2.28.9",
                          "nccl_lib_loaded": ["/x/nvidia/nccl/lib/libnccl.so.2"]})");
  auto lib = analysis::RunAnalyzers(listed, {}, {Source::kEnv});
  const Finding* f = Find(lib, "env.nccl_lib");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("2.28.9"), std::string::npos) << f->title;
}

TEST(OtherDevices, MtiaActivityIsCountedNotDroppedSilently) {
  auto job = ingest::LoadInputs(
      {kData + "public_traces/mtia_inference_rank0/mtia_inference_rank_0.json.gz"}, {});
  ASSERT_TRUE(job.has_value());
  const DiagEntry* seen = nullptr;
  for (const auto& e : job->quality.entries())
    if (e.id == "kineto.other_device_activity") seen = &e;
  ASSERT_NE(seen, nullptr);
  EXPECT_EQ(seen->severity, DiagSeverity::kWarning);
  EXPECT_EQ(seen->count, 1313u);  // every mtia_ccp_events event of the file
  EXPECT_NE(seen->message.find("mtia_ccp_events"), std::string::npos);
}

}  // namespace
}  // namespace commdx
