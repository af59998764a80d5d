// The charts each command fills, through the real binary's HTML: trace and diagnose on a real
// 2xH200 capture (timeline lanes per rank, size histogram bars, bandwidth against the link),
// bench with the fake backend and diagnose on nccl-tests output (sweep against the line rate).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

#include "unit/run_commdx.h"

namespace commdx {
namespace {

std::string Html(const std::string& args) {
  return test_util::RunCommdx(args + " --format html").out;
}

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

const std::string kCapture = std::string(COMMDX_SOURCE_DIR) + "/examples/ddp_healthy";

void ExpectTraceCharts(const std::string& html) {
  ASSERT_NE(html.find("<div id=\"charts\">"), std::string::npos) << html.substr(0, 2000);
  EXPECT_EQ(Count(html, "<svg class=\"timeline\""), 1u);
  for (const char* lane : {"rank 0 compute", "rank 0 comm", "rank 0 idle", "rank 1 compute",
                           "rank 1 comm", "rank 1 idle"})
    EXPECT_NE(html.find(std::string("data-lane=\"") + lane + "\""), std::string::npos) << lane;
  EXPECT_GE(Count(html, "<svg class=\"histogram\""), 1u);
  EXPECT_GE(Count(html, "<rect class=\"bar\""), 1u);
  EXPECT_NE(html.find("Collective sizes: all_reduce"), std::string::npos);
  EXPECT_NE(html.find("data-series=\"achieved (median per size)\""), std::string::npos);
  EXPECT_NE(html.find("data-series=\"expected for the link\""), std::string::npos);
  EXPECT_LT(html.size(), 2'000'000u);
}

TEST(ChartsCli, TraceAndDiagnoseDrawTheCaptureCharts) {
  if (!std::filesystem::exists(kCapture + "/trace_rank0.json.gz")) GTEST_SKIP() << "no capture";
  ExpectTraceCharts(Html("trace " + kCapture));
  ExpectTraceCharts(Html("diagnose " + kCapture));
}

TEST(ChartsCli, BenchAndNcclTestsOutputDrawTheSweepAgainstTheLineRate) {
  std::string bench = Html("bench all_reduce --backend fake -b 8 -e 64M -f 16");
  EXPECT_EQ(Count(bench, "<svg class=\"xy\""), 1u);  // 8 B to 8 MiB by x16: 6 sizes
  EXPECT_NE(bench.find("data-series=\"out-of-place\" data-points=\"6\""), std::string::npos);
  EXPECT_NE(bench.find("data-series=\"link line rate\""), std::string::npos);
  std::string nccl_tests =
      std::string(COMMDX_SOURCE_DIR) + "/tests/data/h200x2_reference/nccl-tests-allreduce-base.txt";
  ASSERT_TRUE(std::filesystem::exists(nccl_tests)) << "missing test data " << nccl_tests;
  std::string diag = Html("diagnose " + nccl_tests);
  EXPECT_NE(diag.find("Bus bandwidth vs message size: all_reduce (nccl-tests"), std::string::npos);
  EXPECT_NE(diag.find("data-series=\"out-of-place\""), std::string::npos);
  EXPECT_EQ(Count(diag, "<svg class=\"timeline\""), 0u);  // no trace among the inputs
}

TEST(ChartsCli, QuietLeavesChartsOutAsItLeavesTablesOut) {
  std::string quiet = Html("bench all_reduce --backend fake -b 8 -e 1M -f 16 --quiet");
  EXPECT_NE(quiet.find("<title>commdx bench all_reduce</title>"), std::string::npos);
  EXPECT_EQ(quiet.find("<svg"), std::string::npos);
  EXPECT_EQ(quiet.find("<table"), std::string::npos);
}

TEST(ChartsCli, TextAndJsonCarryNoCharts) {
  test_util::RunResult r =
      test_util::RunCommdx("bench all_reduce --backend fake -b 8 -e 1M -f 16 --format json");
  ASSERT_EQ(r.code, 0);
  const std::string& out = r.out;
  EXPECT_NE(out.find("\"schema_version\""), std::string::npos);
  EXPECT_EQ(out.find("<svg"), std::string::npos);
  EXPECT_EQ(out.find("\"charts\""), std::string::npos);
}

}  // namespace
}  // namespace commdx
