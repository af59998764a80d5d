// NCCL COLL/TUNING lines into call streams, and hang.rank_behind / hang.desync from them: on the
// real 1xH200 capture (tests/data/hang), a public desync excerpt (rccl#429), and two-rank logs
// built from real init and COLL lines.
#include <gtest/gtest.h>

#include "analysis/hang_analyzers.h"
#include "base/file.h"
#include "ingest/nccl_log/nccl_log_importer.h"
#include "unit/nccl_log_text.h"

namespace commdx::analysis {
namespace {

using nccl_log_test::Parse;

Job ParseFile(const std::string& rel) {
  std::string path = std::string(COMMDX_SOURCE_DIR) + "/tests/data/hang/" + rel;
  auto text = ReadFile(path);
  EXPECT_TRUE(text.has_value()) << path;
  Job job;
  ingest::ParseNcclLogText(text.value(), job);
  return job;
}

const Finding* Find(const std::vector<Finding>& fs, std::string_view id) {
  for (const auto& f : fs)
    if (f.id == id) return &f;
  return nullptr;
}

TEST(HangColl, RealCaptureGivesOneStreamOfTwentyTwoCalls) {
  Job job = ParseFile("h200_healthy/nccl.vm.2355.log");
  ASSERT_EQ(job.nccl.call_streams.size(), 1u);
  const NcclCallStream& s = job.nccl.call_streams[0];
  EXPECT_TRUE(s.identified);
  EXPECT_EQ(s.comm_id, "0xc77cc7aad490eb49");
  EXPECT_EQ(s.rank, 0);
  EXPECT_EQ(s.nranks, 1);
  ASSERT_EQ(s.calls.size(), 22u);
  EXPECT_EQ(s.calls[0].type, CollectiveType::kAllReduce);
  EXPECT_EQ(s.calls[0].count, 1u);
  EXPECT_EQ(s.calls[0].bytes(), 4u);  // datatype 7 = float32
  EXPECT_EQ(s.calls[4].type, CollectiveType::kAllGather);
  EXPECT_EQ(std::string(NcclDataTypeName(s.calls[4].dtype)), "bfloat16");
  EXPECT_EQ(s.calls[5].type, CollectiveType::kBroadcast);
  // COLL lines are no longer unknown or dropped; one rank has nobody to disagree with.
  for (const auto& d : job.quality.entries()) EXPECT_NE(d.id, "nccl_log.unknown_line");
  EXPECT_TRUE(FindCallHang(job, {}).empty());
}

TEST(HangColl, PublicExcerptDesyncNamesTheAllGatherProcess) {
  Job job = ParseFile("public/rccl429_desync_excerpt.log");
  ASSERT_EQ(job.nccl.call_streams.size(), 2u);
  EXPECT_EQ(job.nccl.call_streams[0].calls[0].op_count, 0x28cu);  // opCount is hex
  auto fs = FindCallHang(job, {});
  const Finding* d = Find(fs, "hang.desync");
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->title.find("opCount 28c"), std::string::npos) << d->title;
  EXPECT_NE(d->detail.find("all_gather of 59205120 int8"), std::string::npos) << d->detail;
  EXPECT_NE(d->detail.find("all_reduce of 9984512 float32"), std::string::npos) << d->detail;
  EXPECT_EQ(Find(fs, "hang.rank_behind"), nullptr);  // both reached 28d
}

// Two ranks of one communicator (init lines of a real 2xH200 log), then COLL lines.
std::string TwoRanks(const std::string& rank0_calls, const std::string& rank1_calls) {
  std::string s =
      "vm:656:667 [0] NCCL INFO ncclCommInitRankConfig comm 0xa rank 0 nranks 2 cudaDev 0 "
      "nvmlDev 0 busId 60 commId 0x88 - Init COMPLETE\n"
      "vm:657:668 [1] NCCL INFO ncclCommInitRankConfig comm 0xb rank 1 nranks 2 cudaDev 1 "
      "nvmlDev 1 busId 70 commId 0x88 - Init COMPLETE\n";
  return s + rank0_calls + rank1_calls;
}

std::string Call(int rank, const char* op, int oc, long count, int dtype = 7) {
  char buf[400];
  std::snprintf(buf, sizeof buf,
                "vm:%d:%d [%d] NCCL INFO %s: opCount %x sendbuff 0x7f5e46e00000 recvbuff "
                "0x7f5e46e00000 count %ld datatype %d op 0 root 0 comm %s [nranks=2] stream "
                "0x3eec1bb0\n",
                656 + rank, 656 + rank, rank, op, oc, count, dtype, rank ? "0xb" : "0xa");
  return buf;
}

TEST(HangColl, RankThatStopsFirstIsNamed) {
  std::string r0, r1;
  for (int i = 0; i < 20; ++i) r0 += Call(0, "AllReduce", i, 1024);
  for (int i = 0; i < 12; ++i) r1 += Call(1, "AllReduce", i, 1024);
  auto fs = FindCallHang(Parse(TwoRanks(r0, r1)), {});
  const Finding* b = Find(fs, "hang.rank_behind");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->rank, 1);
  EXPECT_NE(b->title.find("opCount b "), std::string::npos) << b->title;
  EXPECT_NE(b->title.find("reached opCount 13"), std::string::npos) << b->title;
  EXPECT_EQ(Find(fs, "hang.desync"), nullptr);
}

TEST(HangColl, SameSequenceIsQuietAndSizeMismatchIsADesync) {
  std::string r0, r1;
  for (int i = 0; i < 8; ++i)
    r0 += Call(0, "AllReduce", i, 1024), r1 += Call(1, "AllReduce", i, 1024);
  EXPECT_TRUE(FindCallHang(Parse(TwoRanks(r0, r1)), {}).empty());
  r0 += Call(0, "AllReduce", 8, 4096);
  r1 += Call(1, "AllReduce", 8, 2048);
  auto fs = FindCallHang(Parse(TwoRanks(r0, r1)), {});
  const Finding* d = Find(fs, "hang.desync");
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->title.find("opCount 8"), std::string::npos);
  EXPECT_EQ(d->refs.size(), 2u);
}

TEST(HangColl, SendRecvDifferByDesign) {
  std::string r0 = Call(0, "Send", 0, 100) + Call(0, "AllReduce", 1, 8);
  std::string r1 = Call(1, "Recv", 0, 100) + Call(1, "AllReduce", 1, 8);
  EXPECT_TRUE(FindCallHang(Parse(TwoRanks(r0, r1)), {}).empty());
}

TEST(HangColl, TuningLineGivesAlgorithmOfRankZeroCall) {
  std::string log = TwoRanks(Call(0, "AllReduce", 0, 8400896), "") +
                    "vm:656:656 [0] NCCL INFO AllReduce: 33603584 Bytes -> Algo RING proto "
                    "SIMPLE channel{Lo..Hi}={0..23}\n";
  Job job = Parse(log);
  ASSERT_EQ(job.nccl.call_streams.size(), 1u);
  EXPECT_EQ(job.nccl.call_streams[0].calls[0].algo, NcclAlgo::kRing);
  EXPECT_EQ(job.nccl.call_streams[0].calls[0].proto, NcclProto::kSimple);
  // 2.20 - 2.22 numbers, no op name.
  job = Parse(TwoRanks(Call(0, "AllReduce", 0, 2), "") +
              "vm:656:656 [0] NCCL INFO 8 Bytes -> Algo 0 proto 0 time 12.345600\n");
  EXPECT_EQ(job.nccl.call_streams[0].calls[0].algo, NcclAlgo::kTree);
  EXPECT_EQ(job.nccl.call_streams[0].calls[0].proto, NcclProto::kLL);
}

TEST(HangColl, GarbledCollLineIsCountedNotDropped) {
  Job job =
      Parse(TwoRanks("vm:656:656 [0] NCCL INFO AllReduce: opCount zz sendbuff 0x1 "
                     "recvbuff 0x1 count 8 datatype 7 op 0 root 0 comm 0xa [nranks=2]\n"
                     "vm:656:656 [0] NCCL INFO AllReduce: opCount 1 sendbuff 0x1\n",
                     ""));
  EXPECT_TRUE(job.nccl.call_streams.empty());
  uint64_t malformed = 0;
  for (const auto& d : job.quality.entries())
    if (d.id == "nccl_log.malformed_coll") malformed += d.count;
  EXPECT_EQ(malformed, 2u);
}

}  // namespace
}  // namespace commdx::analysis
