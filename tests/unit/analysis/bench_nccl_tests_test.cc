#include <gtest/gtest.h>

#include "analysis/bench_analyzers.h"
#include "analysis/bench_summary.h"
#include "base/file.h"
#include "ingest/load_inputs.h"
#include "ingest/nccl_tests/nccl_tests_importer.h"
#include "ingest/registry.h"

namespace commdx {
namespace {

// Real nccl-tests output of the 2xH200 machine (tests/data/h200x2_reference/README.md).
const std::string kRef = std::string(COMMDX_SOURCE_DIR) + "/tests/data/h200x2_reference/";

Job Load(const std::string& name) {
  auto job = ingest::LoadInputs({kRef + name}, {});
  EXPECT_TRUE(job) << kRef + name << ": " << (job ? "" : job.error().ToString());
  return job ? std::move(job).value() : Job{};
}

Job FromText(const std::string& text) {
  Job job;
  FileText f{"mem.txt", text, false, 0};
  auto st = ingest::ParseNcclTests(f, job);
  EXPECT_TRUE(st) << st.error().ToString();
  return job;
}

const Finding* FindId(const std::vector<Finding>& fs, const std::string& id) {
  for (const auto& f : fs)
    if (f.id == id) return &f;
  return nullptr;
}

TEST(NcclTests, ParsesTheReferenceAllReduceTable) {
  Job job = Load("nccl-tests-allreduce-base.txt");
  ASSERT_EQ(job.inputs.size(), 1u);
  EXPECT_EQ(InputKindsName(job.inputs[0].kinds), "nccl_tests");
  ASSERT_EQ(job.bench.size(), 1u);
  const BenchResult& r = job.bench[0];
  EXPECT_EQ(r.case_key, "all_reduce");
  EXPECT_EQ(r.source, BenchSource::kNcclTests);
  EXPECT_EQ(r.tool_version, "2.19.6");
  EXPECT_EQ(r.nccl_version, "2.28.9");
  EXPECT_EQ(r.nranks, 2);
  EXPECT_EQ(r.topology.gpu_name, "NVIDIA H200");
  EXPECT_FALSE(r.cuda_graph);
  ASSERT_EQ(r.rows.size(), 16u);
  const BenchRow& last = r.rows.back();
  EXPECT_EQ(last.bytes, 8589934592ull);
  EXPECT_EQ(last.count, 2147483648ull);
  EXPECT_EQ(last.dtype, "float");
  EXPECT_EQ(last.redop, "sum");
  EXPECT_EQ(last.root, -1);
  EXPECT_DOUBLE_EQ(last.out_of_place.time_us, 24812.3);
  EXPECT_DOUBLE_EQ(last.out_of_place.busbw_gbps, 346.20);
  EXPECT_DOUBLE_EQ(last.in_place.busbw_gbps, 344.29);
  EXPECT_EQ(last.in_place.wrong, 0);
  EXPECT_EQ(last.loc.line, 27u);
  ASSERT_TRUE(r.reported_avg_busbw_gbps);
  EXPECT_DOUBLE_EQ(*r.reported_avg_busbw_gbps, 113.77);
  EXPECT_EQ(r.reported_out_of_bounds, 0);
  EXPECT_TRUE(job.quality.empty());
}

TEST(NcclTests, SendRecvInPlaceWrongIsNotApplicableAndGraphIsSeen) {
  Job sr = Load("nccl-tests-sendrecv-base.txt");
  ASSERT_EQ(sr.bench.size(), 1u);
  EXPECT_EQ(sr.bench[0].case_key, "sendrecv");
  EXPECT_EQ(sr.bench[0].rows[0].out_of_place.wrong, 0);
  EXPECT_EQ(sr.bench[0].rows[0].in_place.wrong, -1);
  Job g = Load("nccl-tests-allreduce-graph.txt");
  ASSERT_EQ(g.bench.size(), 1u);
  EXPECT_TRUE(g.bench[0].cuda_graph);
  Job ag = Load("nccl-tests-allgather-base.txt");
  ASSERT_EQ(ag.bench.size(), 1u);
  ASSERT_FALSE(ag.bench[0].rows.empty());
  EXPECT_EQ(ag.bench[0].rows[0].bytes, 0u);
  EXPECT_EQ(ag.bench[0].rows.back().count, 268435456u);
}

TEST(NcclTests, OldLayoutWithErrorColumnAndNoRoot) {
  // nccl-tests 1.x/2.0: no version line, no root column, "error" instead of "#wrong".
  Job job = FromText(
      "# nThread 1 nGpus 8 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 "
      "validation: 1\n"
      "#\n# Using devices\n"
      "#   Rank  0 Pid  25375 on    dgx1v device  0 [0x06] Tesla V100-SXM2-16GB\n"
      "#   Rank  1 Pid  25375 on    dgx1v device  1 [0x07] Tesla V100-SXM2-16GB\n"
      "#\n"
      "#                                                     out-of-place                       "
      "in-place\n"
      "#       size         count    type   redop     time   algbw   busbw  error     time   algbw "
      "  busbw  error\n"
      "#        (B)    (elements)                     (us)  (GB/s)  (GB/s)            (us)  (GB/s) "
      " (GB/s)\n"
      "           8             2   float     sum    42.42    0.00    0.00  1e-07    41.49    0.00 "
      "   0.00  1e-07\n"
      "   134217728      33554432   float     sum   1473.8   91.07  159.37  1e-07   1472.5   91.15 "
      " 159.51  1e-07\n"
      "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 50.4\n");
  ASSERT_EQ(job.bench.size(), 1u);
  const BenchResult& r = job.bench[0];
  EXPECT_EQ(r.case_key, "unknown");
  EXPECT_EQ(r.nranks, 2);
  EXPECT_EQ(r.topology.gpu_name, "Tesla V100-SXM2-16GB");
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.rows[1].root, -1);
  EXPECT_DOUBLE_EQ(r.rows[1].out_of_place.busbw_gbps, 159.37);
  EXPECT_EQ(r.rows[1].out_of_place.wrong, -1);  // a max deviation, not a count
}

TEST(NcclTests, BadRowsAreCountedAndTwoTablesGiveTwoResults) {
  std::string table =
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong     "
      "time   algbw   busbw  #wrong\n"
      "        1024           256     float     sum      -1    12.00    0.09    0.09       0    "
      "12.10    0.08    0.08       0\n";
  Job job = FromText("# Collective test starting: all_reduce_perf\n" + table +
                     "        2048           512     float     sum      -1    13.00    0.16\n"
                     "# Collective test concluded: all_reduce_perf\n"
                     "# Collective test starting: reduce_scatter_perf\n" +
                     table);
  ASSERT_EQ(job.bench.size(), 2u);
  EXPECT_EQ(job.bench[0].case_key, "all_reduce");
  EXPECT_EQ(job.bench[1].case_key, "reduce_scatter");
  EXPECT_EQ(job.bench[0].rows.size(), 1u);
  EXPECT_EQ(job.quality.Count("nccl_tests.bad_row"), 1u);
  EXPECT_EQ(job.quality.entries()[0].first.line, 4u);
}

TEST(NcclTests, SniffsByContentAndRejectsTablelessText) {
  EXPECT_TRUE(ingest::SniffNcclTests("# nccl-tests version 2.13.8 nccl-headers=21903"));
  EXPECT_FALSE(
      ingest::SniffNcclTests("node1:2045:2101 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P"));
  Job job;
  FileText f{"x.txt", "# nccl-tests version 2.19.6\nnothing else\n", false, 0};
  auto st = ingest::ParseNcclTests(f, job);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, ErrorCode::kBadInput);
  EXPECT_NE(st.error().ToString().find("x.txt"), std::string::npos);
}

TEST(BenchSummary, PlateauIsNotTheAverageAndLatencyFloorIsTheSmallTimes) {
  Job job = Load("nccl-tests-allreduce-base.txt");
  ASSERT_EQ(job.bench.size(), 1u);
  auto s = analysis::SummarizeBench(job.bench[0]);
  ASSERT_TRUE(s.has_data);
  EXPECT_DOUBLE_EQ(s.peak_busbw_gbps, 346.20);
  // within 5% of the peak: 341.33 and 346.20
  EXPECT_NEAR(s.plateau_busbw_gbps, (341.33 + 346.20) / 2, 1e-9);
  EXPECT_EQ(s.plateau_points, 2);
  EXPECT_TRUE(s.saturated);
  EXPECT_DOUBLE_EQ(s.latency_floor_us, 12.76);
  EXPECT_EQ(s.latency_bytes, 512u);
  ASSERT_TRUE(s.fit_ok);
  EXPECT_GT(s.alpha_us, 8);
  EXPECT_LT(s.alpha_us, 16);
  EXPECT_GT(s.beta_busbw_gbps, 250);
  EXPECT_LT(s.beta_busbw_gbps, 400);
  ASSERT_TRUE(s.expected.known);  // from the GPU name: NVLink4, 18 links x 25 GB/s nominal
  EXPECT_NEAR(s.expected.line_rate_gbps, 450, 1e-9);
  EXPECT_NEAR(s.efficiency, 343.765 / 450, 1e-3);
  EXPECT_LE(s.expected.confidence, 0.6);
  // all_gather stops at 2 GiB while still rising
  Job ag = Load("nccl-tests-allgather-base.txt");
  ASSERT_EQ(ag.bench.size(), 1u);
  EXPECT_FALSE(analysis::SummarizeBench(ag.bench[0]).saturated);
}

TEST(BenchFindings, HealthyReferenceRunsRaiseNothing) {
  for (const char* f : {"nccl-tests-allreduce-base.txt", "nccl-tests-sendrecv-base.txt",
                        "nccl-tests-allgather-base.txt", "nccl-tests-allreduce-graph.txt"}) {
    Job job = Load(f);
    auto fs = analysis::RunAnalyzers(job, {}, {Source::kBench});
    EXPECT_TRUE(fs.empty()) << f << ": " << (fs.empty() ? "" : fs[0].id + " " + fs[0].title);
  }
}

TEST(BenchFindings, P2pOffOneChannelAndSocketAreLowBandwidth) {
  for (const char* f : {"nccl-tests-allreduce-p2poff.txt", "nccl-tests-allreduce-onech.txt",
                        "nccl-tests-allreduce-socket.txt"}) {
    Job job = Load(f);
    auto fs = analysis::RunAnalyzers(job, {}, {Source::kBench});
    const Finding* low = FindId(fs, "bench.low_busbw");
    ASSERT_NE(low, nullptr) << f;
    EXPECT_EQ(low->severity, Severity::kError);
    EXPECT_LT(low->confidence, 0.9);  // the link was assumed from the GPU name
    ASSERT_FALSE(low->refs.empty());
    EXPECT_GT(low->refs[0].where.line, 10u);
  }
  Job sock = Load("nccl-tests-allreduce-socket.txt");
  auto fs = analysis::RunAnalyzers(sock, {}, {Source::kBench});
  const Finding* lat = FindId(fs, "bench.high_latency");
  ASSERT_NE(lat, nullptr);
  EXPECT_NEAR(lat->metrics[0].value, 28720, 1);  // 28.72 us at 128 B, out-of-place
}

TEST(BenchFindings, WrongResultsAndAsymmetricPairs) {
  Job job;
  BenchResult r;
  r.case_key = "all_reduce";
  BenchRow row;
  row.bytes = 1024;
  row.out_of_place = {10, 0, 0, 0.1, 0.1, 7, 20, 0, true};
  r.rows.push_back(row);
  r.p2p.push_back({0, 1, "ce", false, 1 << 20, 390, 2, 0, 0, ""});
  r.p2p.push_back({1, 0, "ce", false, 1 << 20, 150, 2, 0, 0, ""});
  r.p2p.push_back({1, 0, "sm", false, 1 << 20, 380, 2, 0, 0, ""});
  job.bench.push_back(r);
  auto fs = analysis::RunAnalyzers(job, {}, {Source::kBench});
  const Finding* wrong = FindId(fs, "bench.wrong_results");
  ASSERT_NE(wrong, nullptr);
  EXPECT_EQ(wrong->metrics[0].value, 7);
  const Finding* asym = FindId(fs, "bench.asymmetric_pair");
  ASSERT_NE(asym, nullptr);
  EXPECT_EQ(asym->rank, 1);
  int asym_count = 0;
  for (const auto& f : fs) asym_count += f.id == "bench.asymmetric_pair";
  EXPECT_EQ(asym_count, 1);  // the sm pair has no peer to compare with
}

// Excerpts from public threads (tests/data/nccl_tests_public/README.md), refused before.
Job LoadPublic(const std::string& name) {
  const std::string path = std::string(COMMDX_SOURCE_DIR) + "/tests/data/nccl_tests_public/" + name;
  auto job = ingest::LoadInputs({path}, {});
  EXPECT_TRUE(job) << path << ": " << (job ? "" : job.error().ToString());
  return job ? std::move(job).value() : Job{};
}

TEST(NcclTests, PrependRankTagsAndNoHeaderAreReadAndTheFallIsFound) {
  Job job = LoadPublic("nccl1453-prepend-rank-no-header.txt");
  ASSERT_EQ(job.bench.size(), 1u);
  const BenchResult& r = job.bench[0];
  // The first and the last row are cut (skipped, counted); the ten whole ones read.
  ASSERT_EQ(r.rows.size(), 10u);
  EXPECT_EQ(r.rows[0].bytes, 1048576u);
  EXPECT_EQ(r.rows[0].redop, "sum");
  EXPECT_DOUBLE_EQ(r.rows[5].out_of_place.busbw_gbps, 29.50);
  EXPECT_DOUBLE_EQ(r.rows[6].out_of_place.time_us, 24410);
  EXPECT_EQ(job.quality.Count(QualityId("nccl_tests.no_header")), 1u);
  EXPECT_EQ(job.quality.Count(QualityId("nccl_tests.bad_row")), 2u);
  analysis::BenchSummary s = analysis::SummarizeBench(r);
  EXPECT_TRUE(s.dropped);
  EXPECT_FALSE(s.saturated);
  EXPECT_EQ(s.latency_row, nullptr);  // no size of 64 KiB or less: no latency floor
  ASSERT_NE(s.first_dropped_row, nullptr);
  EXPECT_EQ(s.first_dropped_row->bytes, 67108864u);
  auto fs = analysis::RunAnalyzers(job, {}, {Source::kBench});
  const Finding* drop = FindId(fs, "bench.busbw_drop");
  ASSERT_NE(drop, nullptr);
  EXPECT_NE(drop->title.find("falls from 29.5 GB/s at 32.00 MiB to 5.3 GB/s at 512.00 MiB"),
            std::string::npos)
      << drop->title;
  EXPECT_EQ(FindId(fs, "bench.high_latency"), nullptr);
}

TEST(NcclTests, OldRowsWithoutHeader) {
  Job job = LoadPublic("nccl340-rows-without-header.txt");
  ASSERT_EQ(job.bench.size(), 1u);  // the broadcast run after it stops at its preamble
  const BenchResult& first = job.bench[0];
  ASSERT_EQ(first.rows.size(), 12u);
  EXPECT_EQ(first.case_key, "unknown");
  EXPECT_EQ(first.rows[0].bytes, 65536u);
  EXPECT_DOUBLE_EQ(first.rows[11].in_place.busbw_gbps, 21.86);
  EXPECT_EQ(first.rows[0].out_of_place.wrong, -1);  // "0e+00": a max error, not a count
  for (const auto& f : analysis::RunAnalyzers(job, {}, {Source::kBench}))
    EXPECT_NE(f.severity, Severity::kError) << f.id << ": " << f.title;
}

// A run pasted with its shell prompt and command line, no "# Collective test starting:" (the
// preamble and first rows of a public 2x RTX 2080 Ti post, github.com/Anthony-Hoo/
// Anthony-Hoo.github.io, posts/AutoDL_Multi-GPU_Interconnection_Test.md): the command names
// the test.
TEST(NcclTests, TheCommandLineNamesTheTest) {
  const std::string header =
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
      "time   algbw   busbw #wrong\n";
  auto row = [](const char* redop) {
    return std::string("     8388608   2097152 float ") + redop +
           "     -1   2113.20        3.97        3.97      0   2111.50        3.97        3.97      0\n";
  };
  Job job = FromText(
      "root@autodl-container-xxxxx:~/nccl-tests# ./build/all_reduce_perf -b 8 -e 1024M -f 2 -g2\n"
      "# nThread 1 nGpus 2 minBytes 8 maxBytes 1073741824 step: 2(factor) warmup iters: 5 iters: "
      "20 agg iters: 1 validation: 1 graph: 0\n" +
      header + row("sum") + "$ mpirun -np 2 /opt/nccl-tests/build/alltoall_perf_mpi -b 8 -e 64M\n" +
      header + row("none"));
  ASSERT_EQ(job.bench.size(), 2u);
  EXPECT_EQ(job.bench[0].case_key, "all_reduce");
  EXPECT_EQ(job.bench[1].case_key, "alltoall");
  // Words that only contain "_perf" are not commands.
  Job other = FromText("see my_perf_notes.txt and NCCL_perf\n" + header + row("sum"));
  ASSERT_EQ(other.bench.size(), 1u);
  EXPECT_EQ(other.bench[0].case_key, "unknown");
}

// A PCIe card's model names its PCIe generation: two RTX 2080 Ti (Gen3 x16, ~10-14 GB/s busbw)
// at 4 GB/s are low (the public AutoDL post: P2P unavailable through the driver), at 11 GB/s not.
TEST(BenchFindings, APcieCardsModelGivesTheExpectedLinkAtLowConfidence) {
  auto run = [](double busbw) {
    std::string rows;
    for (uint64_t bytes = 1 << 20; bytes <= (1u << 30); bytes <<= 2) {
      const double us = static_cast<double>(bytes) / (busbw * 1e3);
      rows += "  " + std::to_string(bytes) + "  " + std::to_string(bytes / 4) +
              "  float  sum  -1  " + std::to_string(us) + "  " + std::to_string(busbw) + "  " +
              std::to_string(busbw) + "  0  " + std::to_string(us) + "  " +
              std::to_string(busbw) + "  " + std::to_string(busbw) + "  0\n";
    }
    return FromText(
        "# nThread 1 nGpus 2 minBytes 8 maxBytes 1073741824 step: 2(factor) warmup iters: 5 "
        "iters: 20 agg iters: 1 validation: 1 graph: 0\n"
        "#  Rank  0 Group  0 Pid  31706 on autodl device  0 [0000:b4:00] NVIDIA GeForce RTX 2080 "
        "Ti\n"
        "#  Rank  1 Group  0 Pid  31706 on autodl device  1 [0000:b5:00] NVIDIA GeForce RTX 2080 "
        "Ti\n"
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
        "time   algbw   busbw #wrong\n" +
        rows);
  };
  Job slow = run(4.0);
  auto fs = analysis::RunAnalyzers(slow, {}, {Source::kBench});
  const Finding* low = FindId(fs, "bench.low_busbw");
  ASSERT_NE(low, nullptr);
  EXPECT_LE(low->confidence, 0.6);
  EXPECT_NE(low->detail.find("PCIe Gen3 x16"), std::string::npos) << low->detail;
  Job fine = run(11.0);
  EXPECT_EQ(FindId(analysis::RunAnalyzers(fine, {}, {Source::kBench}), "bench.low_busbw"),
            nullptr);
}

TEST(BenchFindings, LatencyOfAnExcerptWithoutItsRanksUsesTheAcrossNodesBound) {
  Job job = LoadPublic("nccl1244-nvlstree-small-sizes-no-ranks.txt");
  ASSERT_EQ(job.bench.size(), 1u);
  EXPECT_EQ(job.bench[0].topology.nodes, 0);  // no "Rank N ... on HOST" lines
  auto fs = analysis::RunAnalyzers(job, {}, {Source::kBench});
  EXPECT_EQ(FindId(fs, "bench.high_latency"), nullptr);  // 46 us: under the 60 us bound
  // The reference run says its ranks ran on one host: the one-node bound still holds there.
  Job sock = Load("nccl-tests-allreduce-socket.txt");
  EXPECT_EQ(sock.bench[0].topology.nodes, 1);
}

// nccl-tests#322: five sizes from 1 GiB, the first at a third of the peak. The fit's beta is far
// above the measured peak, so the summary does not offer it as a measurement; the reference
// sweeps' fits stay (their beta is 0.85-0.99 of the peak).
TEST(BenchSummary, AFitWhoseBetaIsAboveThePeakIsRejected) {
  Job job = LoadPublic("nccltests322-failure-after-largest-size.txt");
  ASSERT_EQ(job.bench.size(), 1u);
  analysis::BenchSummary s = analysis::SummarizeBench(job.bench[0]);
  EXPECT_DOUBLE_EQ(s.peak_busbw_gbps, 367.29);
  EXPECT_FALSE(s.fit_ok);
  EXPECT_GT(s.beta_busbw_gbps, analysis::kFitBetaOverPeak * s.peak_busbw_gbps);
  EXPECT_EQ(s.fit_rejected, "beta 498.6 GB/s is above the measured peak of 367.3 GB/s");
  for (const char* name : {"nccl-tests-allreduce-base.txt", "nccl-tests-allreduce-socket.txt",
                           "nccl-tests-sendrecv-base.txt"}) {
    analysis::BenchSummary ref = analysis::SummarizeBench(Load(name).bench[0]);
    EXPECT_TRUE(ref.fit_ok) << name;
    EXPECT_EQ(ref.fit_rejected, "") << name;
  }
}

TEST(BenchSummary, ALevelledSweepHasNoFall) {
  Job job = Load("nccl-tests-allreduce-base.txt");
  analysis::BenchSummary s = analysis::SummarizeBench(job.bench[0]);
  EXPECT_FALSE(s.dropped);
  EXPECT_EQ(FindId(analysis::RunAnalyzers(job, {}, {Source::kBench}), "bench.busbw_drop"),
            nullptr);
}

}  // namespace
}  // namespace commdx
