// bench.wide_tail: the 99th percentile per size of nccl-tests -I against the mean.
#include <gtest/gtest.h>

#include "analysis/bench_wide_tail.h"

namespace commdx::analysis {
namespace {

BenchResult Sweep(double p99_at_64m_us) {
  BenchResult r;
  r.case_key = "all_reduce";
  r.source = BenchSource::kNcclTests;
  r.file = "ar.json";
  r.nranks = 8;
  for (uint64_t bytes : {uint64_t{1024}, uint64_t{64} << 20}) {
    BenchRow row;
    row.bytes = bytes;
    row.out_of_place.valid = true;
    row.out_of_place.time_us = bytes < 4096 ? 10 : 400;
    // Small sizes: launch jitter, 10x the mean but only 90 us above it.
    row.out_of_place.p99_us = bytes < 4096 ? 100 : p99_at_64m_us;
    r.rows.push_back(row);
  }
  return r;
}

TEST(BenchWideTail, NamesTheSizeWithAWideTail) {
  Job job;
  job.bench.push_back(Sweep(2000));  // 5x the mean, 1.6 ms above it
  auto out = FindBenchWideTail(job, {});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].id, "bench.wide_tail");
  EXPECT_NE(out[0].title.find("at 67108864 bytes"), std::string::npos) << out[0].title;
  EXPECT_NE(out[0].title.find("5.0x"), std::string::npos) << out[0].title;
}

TEST(BenchWideTail, JitterAndNarrowTailsAreNotRaised) {
  Job job;
  job.bench.push_back(Sweep(1000));  // 2.5x: under 3x
  EXPECT_TRUE(FindBenchWideTail(job, {}).empty());
  job.bench[0] = Sweep(0);  // no -I: no p99
  EXPECT_TRUE(FindBenchWideTail(job, {}).empty());
}

}  // namespace
}  // namespace commdx::analysis
