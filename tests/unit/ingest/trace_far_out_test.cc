// Events far outside a trace's span (model/far_out.h): the rule on its own, and the Kineto
// importer leaving them out of steps and collectives (issue 16: a kernel at ts=0 made a step of
// 5,160,728,092 ms; a kernel lasting 104 days flipped the root cause).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "ingest/kineto/kineto_importer.h"
#include "model/far_out.h"

namespace commdx {
namespace {

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kS = 1'000'000'000;

std::string Slurp(const std::string& path) {
  std::ifstream in(std::string(COMMDX_SOURCE_DIR) + "/" + path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

Job Load(const std::string& name, const std::string& text) {
  Job job;
  auto st = ingest::ParseKineto(FileText{name, text, false, text.size()}, job);
  EXPECT_TRUE(st) << (st ? "" : st.error().ToString());
  ingest::FinishTraceSet(job);
  return job;
}

// The trace with a copy of its first event of `name_part`, with "ts"/"dur" set, appended.
std::string WithCopy(std::string text, const std::string& name_part, const std::string& ts,
                     const std::string& dur) {
  size_t name = text.find(name_part);
  size_t open = text.rfind("{\"ph\"", name);
  size_t close = text.find("}}", name) + 2;
  std::string ev = text.substr(open, close - open);
  auto set = [&ev](const std::string& key, const std::string& value) {
    size_t at = ev.find("\"" + key + "\": ") + key.size() + 4;
    ev.replace(at, ev.find(',', at) - at, value);
  };
  if (!ts.empty()) set("ts", ts);
  if (!dur.empty()) set("dur", dur);
  return text.insert(text.rfind(']'), ", " + ev);  // the end of traceEvents, the last key
}

// 100 events 10 ms apart, each lasting 1 ms: the bulk spans [10 ms, 980 ms].
FarOutRule Bulk() {
  FarOutRule rule(101);
  for (int i = 0; i < 100; ++i) rule.Add(i * 10 * kMs, i * 10 * kMs + kMs);
  return rule;
}

TEST(FarOutRule, KeepsAStragglerOfSeveralSpansAndDropsTenSpansAway) {
  FarOutRule rule = Bulk();
  rule.Add(500 * kMs, 8 * kS);  // one NCCL kernel waiting 8x the bulk's span: the thing to find
  TimeWindow w = rule.Window();
  EXPECT_TRUE(w.Keeps(500 * kMs, 8 * kS));
  EXPECT_TRUE(w.Keeps(0, kMs));
  EXPECT_FALSE(w.Keeps(500 * kMs, 11 * kS));  // over 10x the span past the bulk's end
  EXPECT_FALSE(w.Keeps(-10 * kS, 0));
  // The bulk: the 2nd smallest start and the 2nd largest end (one extreme dropped each side).
  EXPECT_EQ(w.lo_ns, 10 * kMs - 10 * 981 * kMs);
  EXPECT_EQ(w.hi_ns, 991 * kMs + 10 * 981 * kMs);
}

TEST(FarOutRule, MarginIsAtLeastOneSecond) {
  FarOutRule rule(100);
  for (int i = 0; i < 100; ++i) rule.Add(i * 1000, i * 1000 + 500);  // 100 µs in all
  TimeWindow w = rule.Window();
  EXPECT_TRUE(w.Keeps(-900 * kMs, 0));
  EXPECT_FALSE(w.Keeps(-2 * kS, 0));
}

TEST(FarOutRule, TooFewEventsKeepEverything) {
  FarOutRule rule(3);
  rule.Add(0, 1);
  rule.Add(5 * kS, 5 * kS + 1);
  rule.Add(INT64_MAX - 1, INT64_MAX);
  TimeWindow w = rule.Window();
  EXPECT_TRUE(w.Keeps(INT64_MIN, INT64_MAX));
}

TEST(FarOutRule, ExtremeTimesSaturateInsteadOfOverflowing) {
  FarOutRule rule(40);
  for (int i = 0; i < 20; ++i) rule.Add(INT64_MIN + i, INT64_MIN + i + 1);
  for (int i = 0; i < 20; ++i) rule.Add(INT64_MAX - 2 - i, INT64_MAX - 1 - i);
  TimeWindow w = rule.Window();
  EXPECT_EQ(w.lo_ns, INT64_MIN);
  EXPECT_EQ(w.hi_ns, INT64_MAX);
}

TEST(FarOutRule, DropKeepsOrderAndNamesTheFirst) {
  RankTrace t;
  for (int i = 0; i < 30; ++i) {
    GpuOp op;
    op.start_ns = i * kMs;
    op.end_ns = op.start_ns + kMs;
    op.name = static_cast<uint32_t>(i);
    t.gpu_ops.push_back(op);
  }
  t.gpu_ops[7].start_ns = -100 * kS;
  t.gpu_ops[20].end_ns = 100 * kS;
  FarOutDropped d = DropFarOutEvents(t, FarOutWindow(t));
  EXPECT_EQ(d.count, 2u);
  EXPECT_EQ(d.name, 7u);
  EXPECT_EQ(d.start_ns, -100 * kS);
  ASSERT_EQ(t.gpu_ops.size(), 28u);
  for (size_t i = 1; i < t.gpu_ops.size(); ++i) EXPECT_LT(t.gpu_ops[i - 1].name, t.gpu_ops[i].name);
}

void ExpectSameSteps(const RankTrace& a, const RankTrace& b) {
  ASSERT_EQ(a.steps.size(), b.steps.size());
  for (size_t i = 0; i < a.steps.size(); ++i) {
    EXPECT_EQ(a.steps[i].start_ns, b.steps[i].start_ns);
    EXPECT_EQ(a.steps[i].end_ns, b.steps[i].end_ns);
  }
}

TEST(KinetoFarOut, KernelAtZeroIsNotedAndLeftOutOfSteps) {
  const std::string base = Slurp("tests/fuzz/corpus/kineto/ddp_healthy_rank0.json");
  Job before = Load("rank0.json", base);
  Job after = Load("rank0.json", Slurp("tests/badinput/cases/trace_kernel_at_zero.json"));
  const RankTrace& a = before.trace.ranks.at(0);
  const RankTrace& b = after.trace.ranks.at(0);
  EXPECT_EQ(a.gpu_ops.size(), b.gpu_ops.size());
  EXPECT_EQ(a.first_ns, b.first_ns);
  EXPECT_EQ(a.last_ns, b.last_ns);
  ExpectSameSteps(a, b);
  EXPECT_EQ(before.quality.Count("kineto.far_out_events"), 0u);
  ASSERT_EQ(after.quality.Count("kineto.far_out_events"), 1u);
  for (const auto& e : after.quality.entries())
    if (e.id == "kineto.far_out_events") {
      EXPECT_NE(e.message.find("first: GPU op 'void at::native::unrolled_elementwise_kernel"),
                std::string::npos)
          << e.message;
      EXPECT_NE(e.message.find("at ts 0 µs"), std::string::npos) << e.message;
      EXPECT_EQ(e.first.file, "rank0.json");
    }
}

TEST(KinetoFarOut, NcclKernelOf104DaysDoesNotBecomeACollective) {
  const std::string base = Slurp("tests/fuzz/corpus/kineto/alltoall_healthy_rank0.json");
  Job before = Load("rank0.json", base);
  Job after = Load("rank0.json", WithCopy(base, "ncclDevKernel", "", "8985600000000"));
  const RankTrace& a = before.trace.ranks.at(0);
  const RankTrace& b = after.trace.ranks.at(0);
  ASSERT_FALSE(a.collectives.empty());
  ASSERT_EQ(a.collectives.size(), b.collectives.size());
  for (size_t i = 0; i < b.collectives.size(); ++i) {
    EXPECT_EQ(a.collectives[i].end_ns, b.collectives[i].end_ns);
    ASSERT_GE(b.collectives[i].gpu_op, 0);
    EXPECT_EQ(b.gpu_ops[b.collectives[i].gpu_op].kind, GpuOpKind::kCommKernel);
  }
  EXPECT_EQ(a.last_ns, b.last_ns);
  ExpectSameSteps(a, b);
  EXPECT_EQ(after.quality.Count("kineto.far_out_events"), 1u);
}

}  // namespace
}  // namespace commdx
