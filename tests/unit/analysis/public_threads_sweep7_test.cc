// Public issue-thread artifacts of the seventh blind sweep (docs/measurements/root-cause.md),
// labelled from their threads before commdx read them (tests/data/public_sweep7/README.md says
// where each came from and what its label is). Each test is what the label asks of the whole
// diagnosis: the root cause, the severity and the advice.
#include <gtest/gtest.h>

#include <string>

#include "unit/analysis/diagnose_file.h"

namespace commdx {
namespace {

const std::string kData = std::string(COMMDX_SOURCE_DIR) + "/tests/data/public_sweep7/";

using Result = testing::Diagnosed;

Result Diagnose(const std::string& name) { return testing::DiagnoseFile(kData + name); }

const Finding* Find(const Result& r, std::string_view id) { return testing::FindingWithId(r, id); }

using testing::Has;

// nccl-tests#182: two hosts' runs in one output (two summaries, sizes that go back): nccl-tests
// without MPI, not a slow network.
TEST(PublicSweep7, TwoSummariesAreSeparateRunsNotASlowNetwork) {
  Result r = Diagnose("NVIDIA-nccl-tests_182.nccl_tests.txt");
  ASSERT_EQ(r.job.bench.size(), 1u);
  EXPECT_EQ(r.job.bench[0].summaries, 2);
  ASSERT_TRUE(r.root.has_value());
  EXPECT_EQ(r.root->id, "bench.interleaved_runs");
  const Finding* f = Find(r, "bench.interleaved_runs");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(Has(f->title, "2 nccl-tests runs")) << f->title;
  EXPECT_TRUE(Has(f->fix, "MPI=1")) << f->fix;
  EXPECT_EQ(f->refs.front().where.line, 2u);  // the second 128 MiB row
  EXPECT_EQ(Find(r, "bench.low_busbw"), nullptr);
}

// nccl-tests#27: only the two summaries were posted: the same finding, and no "hang".
TEST(PublicSweep7, SummariesAloneStillSaySeparateRuns) {
  Result r = Diagnose("NVIDIA-nccl-tests_27.nccl_tests.txt");
  ASSERT_EQ(r.job.bench.size(), 1u);
  EXPECT_TRUE(r.job.bench[0].rows.empty());
  ASSERT_TRUE(r.root.has_value());
  EXPECT_EQ(r.root->id, "bench.interleaved_runs");
  EXPECT_EQ(Find(r, "bench.no_results"), nullptr);
}

// nccl-tests#264: 'system not yet initialized' is the Fabric Manager, not the network.
TEST(PublicSweep7, SystemNotYetInitializedNamesTheFabricManager) {
  Result r = Diagnose("NVIDIA-nccl-tests_264.nccl_tests.txt");
  const Finding* f = Find(r, "bench.test_failed");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(Has(f->fix, "Fabric Manager")) << f->fix;
  EXPECT_TRUE(Has(f->fix, "nvidia-fabricmanager")) << f->fix;
}

// nccl#104: a quoted NCCL 1.x-era output (no '#', "Rank 0 uses device 0"): a hang on one host,
// with the ACS advice; not refused.
TEST(PublicSweep7, QuotedOldHeaderIsAHangOnOneHost) {
  Result r = Diagnose("NVIDIA-nccl_104.nccl_tests.txt");
  ASSERT_EQ(r.job.bench.size(), 1u);
  EXPECT_EQ(r.job.bench[0].nranks, 8);
  EXPECT_EQ(r.job.bench[0].topology.nodes, 1);
  EXPECT_EQ(r.job.bench[0].topology.gpu_name, "Tesla M40 24GB");
  const Finding* f = Find(r, "bench.no_results");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(Has(f->detail, "ACS")) << f->detail;
  EXPECT_TRUE(Has(f->fix, "NCCL_P2P_DISABLE=1")) << f->fix;
}

// The two controls end inside their device lists (a host lists fewer GPUs than the first):
// the file is cut, which is a note, not a hang.
TEST(PublicSweep7, DeviceListCutIsANoteNotAHang) {
  for (const char* name :
       {"nebius-soperator_428.nccl_tests.txt", "dstackai-dstack_2604.nccl_tests.txt"}) {
    Result r = Diagnose(name);
    ASSERT_EQ(r.job.bench.size(), 1u) << name;
    EXPECT_TRUE(r.job.bench[0].header_cut) << name;
    EXPECT_TRUE(r.findings.empty()) << name << ": " << r.findings.front().id;
    bool noted = false;
    for (const auto& e : r.job.quality.entries()) noted = noted || e.id == "nccl_tests.cut_header";
    EXPECT_TRUE(noted) << name;
  }
}

// The rest were right before this sweep's changes; kept so they stay right.
TEST(PublicSweep7, NvlsDuplicateGpuAndPeerExitStayRight) {
  for (const char* name : {"NVIDIA-nccl_1338.nccl_log.txt", "NVIDIA-nccl_976.nccl_log.txt"}) {
    Result r = Diagnose(name);
    ASSERT_TRUE(r.root.has_value()) << name;
    EXPECT_EQ(r.root->id, "comm.nvls_failure") << name;
    const Finding* f = Find(r, "comm.nvls_failure");
    ASSERT_NE(f, nullptr);
    EXPECT_TRUE(Has(f->fix, "NCCL_NVLS_ENABLE=0")) << f->fix;
    EXPECT_TRUE(Has(f->fix, "fabric manager")) << f->fix;
  }
  Result dup = Diagnose("Peterande-D-FINE_289.job_log.txt");
  ASSERT_TRUE(dup.root.has_value());
  EXPECT_EQ(dup.root->id, "comm.duplicate_gpu");
  Result peer = Diagnose("NVIDIA-nccl-tests_252.nccl_tests.txt");
  ASSERT_TRUE(peer.root.has_value());
  EXPECT_EQ(peer.root->id, "bench.test_failed");
  EXPECT_NE(Find(peer, "comm.remote_exited"), nullptr);
  // Topology only: no symptom, warnings about where traffic goes, nothing at error level.
  for (const char* name : {"NVIDIA-nccl_1530.topo.txt", "lattice-quda_669.topo.txt"}) {
    Result t = Diagnose(name);
    EXPECT_NE(Find(t, "topo.numa_split"), nullptr) << name;
    for (const auto& f : t.findings) EXPECT_NE(f.severity, Severity::kError) << name << f.id;
  }
}

}  // namespace
}  // namespace commdx
