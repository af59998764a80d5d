// comm.small_collectives and the size histogram from NCCL COLL lines: on the real 1xH200 capture
// and the public rccl#429 excerpt (tests/data/hang), and on call streams built in the model.
#include <gtest/gtest.h>

#include "analysis/calls_small_collectives.h"
#include "base/file.h"
#include "ingest/nccl_log/nccl_log_importer.h"

namespace commdx::analysis {
namespace {

Job ParseFile(const std::string& rel) {
  auto text = ReadFile(std::string(COMMDX_SOURCE_DIR) + "/tests/data/hang/" + rel);
  EXPECT_TRUE(text.has_value()) << rel;
  Job job;
  if (text.has_value()) ingest::ParseNcclLogText(text.value(), job);
  return job;
}

TEST(CallSizes, RealOneGpuCaptureIsCountedButNotAdvised) {
  Job job = ParseFile("h200_healthy/nccl.vm.2355.log");
  ASSERT_EQ(job.nccl.call_streams.size(), 1u);
  CallSizeHistogram h = SizeHistogram(job.nccl.call_streams[0]);
  EXPECT_EQ(h.calls, 16u);  // 13 all_reduce + 3 all_gather; the 6 broadcasts are not gradients
  EXPECT_EQ(h.by_op["all_reduce"][0], 4u);  // 1 and 1024 float32, twice each
  EXPECT_EQ(h.by_op["all_gather"][0], 1u);
  EXPECT_EQ(h.bucket_bytes, 25.0 * (1 << 20));
  // One rank: nothing crosses a link, no advice.
  EXPECT_TRUE(FindCallSizes(job, {}).empty());
}

TEST(CallSizes, RealExcerptIsMostlyLarge) {
  Job job = ParseFile("public/rccl429_desync_excerpt.log");
  ASSERT_FALSE(job.nccl.call_streams.empty());
  size_t calls = 0, small = 0, tiny_gathers = 0;
  for (const NcclCallStream& s : job.nccl.call_streams) {
    CallSizeHistogram h = SizeHistogram(s);
    calls += h.calls;
    small += h.latency_bound;
    tiny_gathers += h.by_op["all_gather"][0];
  }
  // 32-60 MB all_reduce/all_gather, and one all_gather of 15,360 int8.
  EXPECT_EQ(calls, 4u);
  EXPECT_EQ(small, 1u);
  EXPECT_EQ(tiny_gathers, 1u);
  EXPECT_TRUE(FindCallSizes(job, {}).empty());
}

Job StreamOf(int nranks, uint64_t count, int n) {
  Job job;
  NcclCallStream s;
  s.comm_id = "0xabc";
  s.rank = 0;
  s.nranks = nranks;
  s.file = "nccl.log";
  for (int i = 0; i < n; ++i) {
    NcclCall c;
    c.op_count = static_cast<uint64_t>(i);
    c.count = count;
    c.type = CollectiveType::kAllReduce;
    c.dtype = 7;  // float32
    s.calls.push_back(c);
  }
  job.nccl.call_streams.push_back(s);
  return job;
}

TEST(CallSizes, ManySmallAllReducesGetTheBucketAdvice) {
  Job job = StreamOf(8, 16384, 200);  // 200 x 64 KiB
  DdpInit d;
  d.rank = 0;
  d.bucket_cap_bytes = 1 << 20;
  d.loc.file = "job.log";
  d.loc.line = 110;
  job.job_log.ddp.push_back(d);
  auto fs = FindCallSizes(job, {});
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].id, "comm.small_collectives");
  EXPECT_NE(fs[0].title.find("200 calls where 1 buckets of 25.00 MiB"), std::string::npos)
      << fs[0].title;
  EXPECT_NE(fs[0].fix.find("DDP bucket cap was 1.00 MiB (job.log:110, rank 0)"), std::string::npos)
      << fs[0].fix;
}

TEST(CallSizes, LargeOrFewCallsGetNone) {
  EXPECT_TRUE(FindCallSizes(StreamOf(8, 8 << 20, 200), {}).empty());  // 32 MiB each
  EXPECT_TRUE(FindCallSizes(StreamOf(8, 16384, 7), {}).empty());      // too few to matter
  EXPECT_TRUE(FindCallSizes(StreamOf(1, 16384, 200), {}).empty());    // one rank
}

}  // namespace
}  // namespace commdx::analysis
