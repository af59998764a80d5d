// nccl-tests runs that stopped on an error: read (with or without a result table) and reported as
// bench.test_failed, the root cause of the diagnosis, with the fix the error text calls for.
#include <gtest/gtest.h>

#include "analysis/analysis_input.h"
#include "analysis/bench_analyzers.h"
#include "diagnose/diagnosis.h"
#include "ingest/load_inputs.h"
#include "ingest/nccl_tests/nccl_tests_importer.h"

namespace commdx {
namespace {

// Public threads' output (tests/data/nccl_tests_public/README.md).
Job LoadPublic(const std::string& name) {
  const std::string path = std::string(COMMDX_SOURCE_DIR) + "/tests/data/nccl_tests_public/" + name;
  auto job = ingest::LoadInputs({path}, {});
  EXPECT_TRUE(job) << path << ": " << (job ? "" : job.error().ToString());
  return job ? std::move(job).value() : Job{};
}

std::vector<Finding> Failed(const Job& job) {
  std::vector<Finding> out;
  for (Finding& f : analysis::RunAnalyzers(job, {}, {Source::kBench}))
    if (f.id == "bench.test_failed") out.push_back(std::move(f));
  return out;
}

TEST(BenchTestFailed, AFailureAfterTheLargestSizeIsTheRootNotNothingFound) {
  Job job = LoadPublic("nccltests322-failure-after-largest-size.txt");
  ASSERT_EQ(job.bench.size(), 1u);
  const BenchResult& r = job.bench[0];
  EXPECT_EQ(r.rows.size(), 5u);
  // Four processes said what failed; their bare "Test failure" lines add nothing.
  ASSERT_EQ(r.failures.size(), 4u);
  EXPECT_EQ(r.failures[0].host, "HCA-128");
  EXPECT_EQ(r.failures[0].library, "NCCL");
  EXPECT_EQ(r.failures[0].message, "unhandled cuda error (run with NCCL_DEBUG=INFO for details)");
  EXPECT_EQ(r.failures[0].loc.line, 7u);
  const std::vector<Finding> fs = Failed(job);
  ASSERT_EQ(fs.size(), 1u);
  const Finding& f = fs[0];
  EXPECT_EQ(f.severity, Severity::kError);
  EXPECT_NE(f.title.find("'unhandled cuda error"), std::string::npos) << f.title;
  EXPECT_NE(f.title.find("(4 processes on 3 hosts)"), std::string::npos) << f.title;
  EXPECT_NE(f.detail.find("after 5 sizes completed, the largest 16.00 GiB"), std::string::npos)
      << f.detail;
  EXPECT_NE(f.fix.find("lower -e"), std::string::npos) << f.fix;
  EXPECT_EQ(f.refs.size(), 4u);
  analysis::AnalysisInput in(job, 1);
  diagnose::Diagnosis d = diagnose::Diagnose(in);
  ASSERT_FALSE(d.findings.empty());
  EXPECT_EQ(d.findings.front().id, "bench.test_failed");
}

TEST(BenchTestFailed, AFailureBeforeAnyTableIsReadNotRefused) {
  Job job = LoadPublic("nccltests98-cuda-failure-at-start.txt");
  ASSERT_EQ(job.bench.size(), 1u);
  EXPECT_EQ(job.bench[0].case_key, "all_reduce");  // from the mpirun command line
  EXPECT_TRUE(job.bench[0].rows.empty());
  const std::vector<Finding> fs = Failed(job);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_NE(fs[0].title.find("'CUDA driver version is insufficient for CUDA runtime version'"),
            std::string::npos);
  EXPECT_NE(fs[0].detail.find("before any size completed"), std::string::npos) << fs[0].detail;
  EXPECT_NE(fs[0].fix.find("driver is older than the CUDA runtime"), std::string::npos);
}

// A run that hangs leaves its header and nothing else (NVIDIA/nccl#1320, one host, two GPUs): read,
// not refused, and the hang is the root with the one-host fix, above the docker bridges NCCL
// lists for its socket transport (which no traffic of one host uses).
TEST(BenchTestFailed, AHeaderWithNoResultIsAHangBeforeTheFirstSize) {
  Job job = LoadPublic("nccl1320-header-then-hang-one-host.log");
  ASSERT_EQ(job.bench.size(), 1u);
  const BenchResult& r = job.bench[0];
  EXPECT_TRUE(r.rows.empty());
  EXPECT_EQ(r.nranks, 2);
  EXPECT_EQ(r.topology.nodes, 1);
  analysis::AnalysisInput in(job, 1);
  diagnose::Diagnosis d = diagnose::Diagnose(in);
  ASSERT_TRUE(d.root_cause.has_value());
  ASSERT_FALSE(d.findings.empty());
  const Finding& root = d.findings.front();
  EXPECT_EQ(root.id, "bench.no_results");
  EXPECT_NE(root.detail.find("2 ranks on 1 host"), std::string::npos) << root.detail;
  EXPECT_NE(root.fix.find("NCCL_P2P_DISABLE=1"), std::string::npos) << root.fix;
  // A run with rows is not a hang.
  Job done = LoadPublic("nccltests322-failure-after-largest-size.txt");
  for (const Finding& f : analysis::RunAnalyzers(done, {}, {Source::kBench}))
    EXPECT_NE(f.id, "bench.no_results");
}

// The NCCL error that made the test fail is the root: the failure is its fallout.
TEST(BenchTestFailed, AnNcclErrorBeforeItIsTheRoot) {
  Job job = LoadPublic("nccltests24-ib-error-then-test-failure.txt");
  ASSERT_EQ(Failed(job).size(), 1u);
  analysis::AnalysisInput in(job, 1);
  diagnose::Diagnosis d = diagnose::Diagnose(in);
  ASSERT_TRUE(d.root_cause.has_value());
  ASSERT_FALSE(d.findings.empty());
  const Finding& root = d.findings.front();
  EXPECT_EQ(root.id, "comm.ib_error");
  // The log names no link layer: the fix covers both, InfiniBand first.
  EXPECT_NE(root.fix.find("On InfiniBand, check the port state"), std::string::npos) << root.fix;
  EXPECT_NE(root.fix.find("On RoCE, check `show_gids`"), std::string::npos) << root.fix;
  EXPECT_NE(d.root_cause->summary.find("It explains: bench.test_failed"), std::string::npos)
      << d.root_cause->summary;
}

TEST(BenchTestFailed, OnlyABareTestFailureStillCounts) {
  Job job;
  FileText f{"mem.txt",
             "# nThread 1 nGpus 1 minBytes 8 maxBytes 128 step: 2(factor)\n"
             "#       size         count      type   redop    root     time   algbw   busbw #wrong"
             "     time   algbw   busbw #wrong\n"
             "           8             2     float     sum      -1    20.26    0.00    0.00      0"
             "    17.74    0.00    0.00      0\n"
             " .. node7 pid 123: Test failure common.cu:915\n",
             false, 0};
  ASSERT_TRUE(ingest::ParseNcclTests(f, job));
  ASSERT_EQ(job.bench.size(), 1u);
  ASSERT_EQ(job.bench[0].failures.size(), 1u);
  EXPECT_EQ(job.bench[0].failures[0].host, "node7");
  EXPECT_TRUE(job.bench[0].failures[0].library.empty());
  const std::vector<Finding> fs = Failed(job);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_NE(fs[0].title.find("failed: a failure"), std::string::npos) << fs[0].title;
  EXPECT_LT(fs[0].confidence, 0.9);
}

TEST(BenchTestFailed, SniffedByTheFailureLineAlone) {
  EXPECT_TRUE(ingest::SniffNcclTests(
      " Test CUDA failure common.cu:1045 'CUDA driver version is insufficient'\n"));
  EXPECT_TRUE(ingest::SniffNcclTests("h1: Test NCCL failure common.cu:1204 'internal error'\n"));
  EXPECT_FALSE(ingest::SniffNcclTests("the test failure was fixed\n"));
}

// nccl-tests -g 8: one thread launches all eight GPUs' kernels; the floor holds those serial
// launches. Reported as info, not as a problem of the link.
TEST(BenchTestFailed, LatencyOfOneThreadDrivingEightGpusIsInfo) {
  std::string text =
      "# nThread 1 nGpus 8 minBytes 8 maxBytes 4294967296 step: 2(factor) warmup iters: 5 iters: "
      "20 agg iters: 1 validation: 1 graph: 0\n";
  for (int g = 0; g < 8; ++g)
    text += "#  Rank  " + std::to_string(g) + " Group  0 Pid  54740 on     thanos device  " +
            std::to_string(g) + " [0x07] NVIDIA A100-SXM4-80GB\n";
  text +=
      "#       size         count      type   redop    root     time   algbw   busbw #wrong"
      "     time   algbw   busbw #wrong\n";
  for (int i = 0; i < 4; ++i)
    text += "        " + std::to_string(8 << i) + "             " + std::to_string(2 << i) +
            "     float     sum      -1    39.12    0.00    0.00      0    39.46    0.00    0.00"
            "      0\n";
  Job job;
  FileText f{"mem.txt", text, false, 0};
  ASSERT_TRUE(ingest::ParseNcclTests(f, job));
  EXPECT_EQ(job.bench[0].gpus_per_thread, 8);
  const Finding* lat = nullptr;
  auto fs = analysis::RunAnalyzers(job, {}, {Source::kBench});
  for (const auto& x : fs)
    if (x.id == "bench.high_latency") lat = &x;
  ASSERT_NE(lat, nullptr);
  EXPECT_EQ(lat->severity, Severity::kInfo);
  EXPECT_NE(lat->title.find("one thread drives 8 GPUs"), std::string::npos) << lat->title;
  EXPECT_NE(lat->fix.find("-g 1"), std::string::npos);
}

}  // namespace
}  // namespace commdx
