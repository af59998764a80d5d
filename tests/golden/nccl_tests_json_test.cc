// nccl-tests -J JSON and the text table of the same run (tests/data/nccl_tests_json/, nccl-tests
// 2.19.6, one H200; README there) give the same results, and -I adds the 99th percentile per size.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "ingest/load_inputs.h"

namespace commdx {
namespace {

const std::string kData = std::string(COMMDX_SOURCE_DIR) + "/tests/data/nccl_tests_json/";

BenchResult LoadOne(const std::string& name, InputKind want) {
  auto job = ingest::LoadInputs({kData + name});
  EXPECT_TRUE(job) << (job ? "" : job.error().ToString());
  if (!job || job->bench.size() != 1) {
    ADD_FAILURE() << name << ": expected one result";
    return {};
  }
  EXPECT_EQ(job->inputs.size(), 1u);
  if (!job->inputs.empty()) {
    EXPECT_EQ(job->inputs[0].kinds, std::vector<InputKind>{want});
  }
  return job->bench[0];
}

TEST(NcclTestsJson, SameResultsAsTheTextTable) {
  BenchResult json = LoadOne("all_reduce.json", InputKind::kNcclTestsJson);
  BenchResult text = LoadOne("all_reduce.txt", InputKind::kNcclTests);
  EXPECT_EQ(json.case_key, "all_reduce");
  EXPECT_EQ(json.case_key, text.case_key);
  EXPECT_EQ(json.nccl_version, text.nccl_version);
  EXPECT_EQ(json.nranks, 1);
  EXPECT_EQ(json.nranks, text.nranks);
  EXPECT_EQ(json.topology.gpu_name, "NVIDIA H200");
  ASSERT_EQ(json.rows.size(), 12u);
  ASSERT_EQ(json.rows.size(), text.rows.size());
  for (size_t i = 0; i < json.rows.size(); ++i) {
    const BenchRow& j = json.rows[i];
    const BenchRow& t = text.rows[i];
    SCOPED_TRACE(j.bytes);
    EXPECT_EQ(j.bytes, t.bytes);
    EXPECT_EQ(j.count, t.count);
    EXPECT_EQ(j.dtype, t.dtype);
    EXPECT_EQ(j.root, t.root);
    // The text prints 2 decimals (or 3-4 significant digits): the JSON is the exact value.
    EXPECT_NEAR(j.out_of_place.time_us, t.out_of_place.time_us, 0.006);
    EXPECT_NEAR(j.in_place.time_us, t.in_place.time_us, 0.006);
    EXPECT_NEAR(j.out_of_place.algbw_gbps, t.out_of_place.algbw_gbps,
                0.006 + 1e-3 * t.out_of_place.algbw_gbps);
    EXPECT_EQ(j.out_of_place.busbw_gbps, 0);  // one rank: nothing crosses a link
    EXPECT_EQ(j.out_of_place.wrong, t.out_of_place.wrong);
    EXPECT_EQ(j.out_of_place.p99_us, 0);  // no -I
  }
}

TEST(NcclTestsJson, PerIterationTailPerSize) {
  BenchResult r = LoadOne("all_reduce_per_iter.json", InputKind::kNcclTestsJson);
  ASSERT_EQ(r.rows.size(), 12u);
  EXPECT_EQ(r.rows[0].bytes, 8u);
  EXPECT_DOUBLE_EQ(r.rows[0].out_of_place.p99_us, 12.448);
  EXPECT_DOUBLE_EQ(r.rows[0].in_place.p99_us, 2.752);
  EXPECT_EQ(r.rows[0].out_of_place.iterations, 50);
  EXPECT_DOUBLE_EQ(r.rows.back().in_place.p99_us, 26.72);
  for (const char* other : {"all_gather.json", "alltoall.json"}) {
    BenchResult o = LoadOne(other, InputKind::kNcclTestsJson);
    EXPECT_FALSE(o.rows.empty()) << other;
  }
}

}  // namespace
}  // namespace commdx
