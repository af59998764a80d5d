// Public artifacts of the eighth blind sweep (docs/measurements/root-cause.md), labelled from
// their sources before commdx read them (tests/data/public_sweep8/README.md says where each came
// from and what its label is). Each test is what the label asks of the whole diagnosis.
#include <gtest/gtest.h>

#include <string>

#include "unit/analysis/diagnose_file.h"

namespace commdx {
namespace {

using testing::Diagnosed;
using testing::FindingWithId;

const std::string kData = std::string(COMMDX_SOURCE_DIR) + "/tests/data/public_sweep8/";

Diagnosed Diagnose(const std::string& name) { return testing::DiagnoseFile(kData + name); }

using testing::Has;

// nccl-tests#37: older nccl-tests ("error" column, untagged trailer) with wrong results at 4 GiB
// only, on a healthy hybrid cube-mesh: wrong results, the large-size overflow, not the topology.
TEST(PublicSweep8, OldErrorColumnAtFourGibIsWrongResultsNotTheTopology) {
  Diagnosed r = Diagnose("NVIDIA-nccl-tests_37.nccl_tests.txt");
  ASSERT_EQ(r.job.bench.size(), 1u);
  const BenchResult& b = r.job.bench[0];
  ASSERT_EQ(b.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(b.rows[0].out_of_place.max_error, 1.0);
  EXPECT_EQ(b.reported_out_of_bounds, 2);
  EXPECT_EQ(b.summaries, 1);  // " Avg bus bandwidth : 128.942" without '#'
  ASSERT_TRUE(r.root.has_value());
  EXPECT_EQ(r.root->id, "bench.wrong_results");
  const Finding* f = FindingWithId(r, "bench.wrong_results");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(Has(f->fix, "2 GiB")) << f->fix;
  EXPECT_TRUE(Has(f->fix, "no smaller size was checked")) << f->fix;
  EXPECT_EQ(f->refs.front().where.line, 5u);
  // Every GPU has four NVLink peers and NVLink joins all eight in a ring: the SYS pairs carry
  // no collective traffic.
  const Finding* topo = FindingWithId(r, "topo.pcie_only");
  ASSERT_NE(topo, nullptr);
  EXPECT_EQ(topo->severity, Severity::kInfo);
  EXPECT_TRUE(Has(topo->title, "ring")) << topo->title;
}

// nccl#1184: #wrong counts from 512 KiB up: wrong results, whatever the cause (not established).
TEST(PublicSweep8, WrongCountsAreTheRootCause) {
  Diagnosed r = Diagnose("NVIDIA-nccl_1184.nccl_tests.txt");
  ASSERT_TRUE(r.root.has_value());
  EXPECT_EQ(r.root->id, "bench.wrong_results");
  const Finding* f = FindingWithId(r, "bench.wrong_results");
  ASSERT_NE(f, nullptr);
  EXPECT_FALSE(Has(f->fix, "2 GiB")) << f->fix;  // wrong from 512 KiB: no overflow here
}

// nccl#2013: ibv_modify_qp INIT -> RTR timed out (110): the peer NIC is unreachable; the fix
// names a test of that NIC pair and NCCL_CROSS_NIC=0 (what fixed it).
TEST(PublicSweep8, ModifyQpTimeoutIsAnUnreachablePeerNic) {
  Diagnosed r = Diagnose("NVIDIA-nccl_2013.nccl_log.txt");
  ASSERT_TRUE(r.root.has_value());
  EXPECT_EQ(r.root->id, "comm.ib_error");
  const Finding* f = FindingWithId(r, "comm.ib_error");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_TRUE(Has(f->detail, "cannot reach the peer's NIC")) << f->detail;
  EXPECT_TRUE(Has(f->fix, "ib_write_bw")) << f->fix;
  EXPECT_TRUE(Has(f->fix, "NCCL_CROSS_NIC=0")) << f->fix;
}

// nccl#902: completion error 12 alone: the fix covers both an unreachable peer and retries cut
// short under congestion (the thread's case: a lowered NCCL_IB_TIMEOUT).
TEST(PublicSweep8, CompletionError12NamesCongestionAndShortTimeouts) {
  Diagnosed r = Diagnose("NVIDIA-nccl_902.nccl_log.txt");
  const Finding* f = FindingWithId(r, "comm.ib_error");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_TRUE(Has(f->fix, "NCCL_IB_TIMEOUT")) << f->fix;
  EXPECT_TRUE(Has(f->fix, "PFC")) << f->fix;
}

// nccl#1676: GDR disabled on every HCA: a warning, counted in HCAs; the fix names NCCL <= 2.22.3
// not recognising nvidia-peermem (the thread's cause).
TEST(PublicSweep8, GdrDisabledOnEveryHcaNamesTheOldModuleCheck) {
  Diagnosed r = Diagnose("NVIDIA-nccl_1676.nccl_log.txt");
  const Finding* f = FindingWithId(r, "comm.gdr_disabled");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kWarning);
  ASSERT_FALSE(f->metrics.empty());
  EXPECT_EQ(f->metrics[0].name, "hcas_without_gdr");
  EXPECT_EQ(f->metrics[0].value, 4);
  EXPECT_TRUE(Has(f->fix, "nvidia-peermem")) << f->fix;
  EXPECT_TRUE(Has(f->fix, "2.23.4")) << f->fix;
}

// torchtitan#1224: two ranks on one GPU (set_device after the device mesh).
TEST(PublicSweep8, DuplicateGpuInAJobLog) {
  Diagnosed r = Diagnose("pytorch-torchtitan_1224.job_log.txt");
  ASSERT_TRUE(r.root.has_value());
  EXPECT_EQ(r.root->id, "comm.duplicate_gpu");
}

// vllm#3071: one watchdog line: a hang whose cause the file cannot show; asks for more.
TEST(PublicSweep8, OneWatchdogLineIsAHangOfUnknownCause) {
  Diagnosed r = Diagnose("vllm-project-vllm_3071.job_log.txt");
  ASSERT_TRUE(r.root.has_value());
  EXPECT_EQ(r.root->id, "hang.watchdog_timeout");
  EXPECT_LT(r.root->confidence, 0.9);
  for (const auto& f : r.findings) EXPECT_NE(f.source, Source::kTopo) << f.id;
  const Finding* f = FindingWithId(r, "hang.watchdog_timeout");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(Has(f->fix, "Flight Recorder")) << f->fix;
}

// nccl#681 (DGX A100) and nccl#1264 (HGX H100), cut excerpts: healthy, nothing to say.
TEST(PublicSweep8, HealthyTopologiesSayNothing) {
  for (const char* name : {"NVIDIA-nccl_681.topo.txt", "NVIDIA-nccl_1264.topo.txt"}) {
    Diagnosed r = Diagnose(name);
    EXPECT_FALSE(r.job.topo.gpus.empty()) << name;
    for (const auto& f : r.findings)
      EXPECT_EQ(f.severity, Severity::kInfo) << name << ": " << f.id << " " << f.title;
  }
}

// TraceLens' DDP ResNet-18 on MI300X without a memory pool: GPU idle in hipMalloc/hipFree, not
// communication; the fix names the caching allocator being off.
TEST(PublicSweep8, HipAllocatorIdleIsNamedNotCommunication) {
  Diagnosed r = Diagnose("AMD-AGI-TraceLens_ddp-resnet18-mi300-no-mempool.pt.trace.json.gz");
  ASSERT_TRUE(r.root.has_value());
  EXPECT_EQ(r.root->id, "trace.allocator_churn");
  const Finding* f = FindingWithId(r, "trace.allocator_churn");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(Has(f->title, "HIP allocator")) << f->title;
  EXPECT_TRUE(Has(f->fix, "PYTORCH_NO_CUDA_MEMORY_CACHING")) << f->fix;
  ASSERT_TRUE(f->saving_ns_per_step && f->step_ns);
  EXPECT_GT(*f->saving_ns_per_step, 0.5 * *f->step_ns);
  for (const auto& g : r.findings)
    EXPECT_FALSE(g.id.rfind("comm.", 0) == 0 && g.severity != Severity::kInfo) << g.id;
}

}  // namespace
}  // namespace commdx
