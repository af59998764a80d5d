// nccl-tests rows pasted with one extra integer column before the size (a hand-made table,
// NVIDIA/nccl#527: the node count of each run) are read with that column ignored; rows that
// only look like it are not.
#include <gtest/gtest.h>

#include <string>

#include "analysis/registry.h"
#include "ingest/load_inputs.h"
#include "ingest/nccl_tests/nccl_tests_importer.h"

namespace commdx {
namespace {

Result<Job> Parse(const std::string& text) {
  Job job;
  FileText f{"paste.txt", text, false, 0};
  auto st = ingest::ParseNcclTests(f, job);
  if (!st) return st.error();
  return job;
}

TEST(NcclTestsLeadingColumn, EachRunOfTheHandMadeTableIsATable) {
  const std::string path = std::string(COMMDX_SOURCE_DIR) +
                           "/tests/data/nccl_tests_public/nccl527-leading-node-count-column.txt";
  auto job = ingest::LoadInputs({path}, {});
  ASSERT_TRUE(job) << job.error().ToString();
  // One 1 GiB row per node count: four runs, not one sweep whose size never grows.
  ASSERT_EQ(job->bench.size(), 4u);
  const double busbw[] = {230.77, 57.17, 31.77, 29.61};
  for (size_t i = 0; i < 4; ++i) {
    const BenchResult& r = job->bench[i];
    ASSERT_EQ(r.rows.size(), 1u) << i;
    EXPECT_EQ(r.rows[0].bytes, 1073741824u);
    EXPECT_EQ(r.rows[0].count, 268435456u);
    EXPECT_EQ(r.rows[0].dtype, "float");
    EXPECT_EQ(r.rows[0].redop, "sum");
    EXPECT_DOUBLE_EQ(r.rows[0].out_of_place.busbw_gbps, busbw[i]);
    EXPECT_EQ(r.rows[0].loc.line, 5u + i);
    bool noted = false;
    for (const auto& n : r.notes)
      noted = noted || n.find("each row starts with one more integer column") != std::string::npos;
    EXPECT_TRUE(noted) << i;
  }
  EXPECT_EQ(job->quality.Count(QualityId("nccl_tests.leading_column")), 1u);
  EXPECT_EQ(job->quality.Count(QualityId("nccl_tests.bad_row")), 0u);
  for (const auto& f : analysis::RunAnalyzers(*job, {}, {Source::kBench}))
    EXPECT_NE(f.id, "bench.busbw_drop") << f.title;
}

TEST(NcclTestsLeadingColumn, AnIndexedSweepStaysOneTable) {
  auto job = Parse(
      "1  1048576  262144  float  sum  -1  40.1  26.15  26.15  0  39.8  26.35  26.35  0\n"
      "2  2097152  524288  float  sum  -1  60.2  34.84  34.84  0  60.0  34.95  34.95  0\n"
      "3  4194304 1048576  float  sum  -1  98.7  42.50  42.50  0  98.1  42.76  42.76  0\n");
  ASSERT_TRUE(job) << job.error().ToString();
  ASSERT_EQ(job->bench.size(), 1u);
  ASSERT_EQ(job->bench[0].rows.size(), 3u);
  EXPECT_EQ(job->bench[0].rows[2].bytes, 4194304u);
  EXPECT_EQ(job->bench[0].rows[2].root, -1);
  EXPECT_DOUBLE_EQ(job->bench[0].rows[2].in_place.busbw_gbps, 42.76);
  EXPECT_EQ(job->quality.Count(QualityId("nccl_tests.leading_column")), 1u);
}

// Near misses: two extra columns, a leading word, a busbw that is no number, an unknown type. None
// is a result row with one extra integer first, so none makes a table.
TEST(NcclTestsLeadingColumn, NearMissesAreNotRead) {
  for (const char* row :
       {"1 8 1073741824 268435456 float sum 8142.6 131.87 230.77 2e-07 8141.2 131.89 230.81 "
        "2e-07\n",
        "n1 1073741824 268435456 float sum 8142.6 131.87 230.77 2e-07 8141.2 131.89 230.81 "
        "2e-07\n",
        "1 1073741824 268435456 float sum 8142.6 131.87 fast 2e-07 8141.2 131.89 230.81 "
        "2e-07\n",
        "1 1073741824 268435456 floats sum 8142.6 131.87 230.77 2e-07 8141.2 131.89 230.81 "
        "2e-07\n"}) {
    auto job = Parse(row);
    ASSERT_FALSE(job) << row;
    EXPECT_NE(job.error().ToString().find("no nccl-tests result table found"), std::string::npos);
  }
}

}  // namespace
}  // namespace commdx
