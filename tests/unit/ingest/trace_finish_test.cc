// What finishing a rank does to its events' times and order: relative times get the base added,
// epoch times carrying a base keep theirs; events come out in start order (longer first at
// equal starts, then by name) whatever order the file wrote them in: nearly sorted files (sorted
// in place), threads written one after the other (far moves: gathered), reversed files, ties.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "ingest/kineto/kineto_importer.h"

namespace commdx {
namespace {

struct Op {
  int64_t ts_us, dur_us;
  int tid;
  std::string name;
};

std::string TraceOf(const std::vector<Op>& ops, const std::string& header = "") {
  std::string s = R"({"schemaVersion": 1, )" + header + R"("traceEvents": [)";
  for (size_t i = 0; i < ops.size(); ++i) {
    const Op& o = ops[i];
    s += i ? ",\n" : "\n";
    s += R"(  {"ph": "X", "cat": "cpu_op", "name": ")" + o.name + R"(", "pid": 1, "tid": )" +
         std::to_string(o.tid) + R"(, "ts": )" + std::to_string(o.ts_us) + R"(, "dur": )" +
         std::to_string(o.dur_us) + R"(, "args": {"External id": )" + std::to_string(i) + "}}";
  }
  return s + "\n]}";
}

// The host ops as (start, end, name) after ingest, checked against the same ops sorted here.
void ExpectSorted(const std::vector<Op>& ops) {
  std::string text = TraceOf(ops);
  FileText f{"sort_rank0.json", text, false, text.size()};
  Job job;
  auto st = ingest::ParseKineto(f, job);
  ASSERT_TRUE(st) << st.error().ToString();
  ingest::FinishTraceSet(job);
  ASSERT_EQ(job.trace.ranks.size(), 1u);
  const RankTrace& t = job.trace.ranks[0];
  // Names order ties by their interned id: the order they first appear in the file.
  std::vector<std::string> first_seen;
  for (const Op& o : ops)
    if (std::find(first_seen.begin(), first_seen.end(), o.name) == first_seen.end())
      first_seen.push_back(o.name);
  auto name_rank = [&](const std::string& n) {
    return std::find(first_seen.begin(), first_seen.end(), n) - first_seen.begin();
  };
  using Row = std::tuple<int64_t, int64_t, std::string>;
  std::vector<Row> want, got;
  for (const Op& o : ops) want.emplace_back(o.ts_us * 1000, (o.ts_us + o.dur_us) * 1000, o.name);
  std::stable_sort(want.begin(), want.end(), [&](const Row& a, const Row& b) {
    if (std::get<0>(a) != std::get<0>(b)) return std::get<0>(a) < std::get<0>(b);
    if (std::get<1>(a) != std::get<1>(b)) return std::get<1>(a) > std::get<1>(b);
    return name_rank(std::get<2>(a)) < name_rank(std::get<2>(b));
  });
  for (const HostOp& o : t.HostOps())
    got.emplace_back(o.start_ns, o.end_ns, std::string(t.names[o.name]));
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], want[i]) << "at " << i;
}

TEST(KinetoSort, NearlySortedWithAStepAnnotationTail) {
  // One long run of ops, then the step annotations that started before them (Kineto writes an
  // annotation when it ends): most ops move one place, a few move far back.
  std::vector<Op> ops;
  for (int i = 0; i < 30000; ++i)
    ops.push_back({1000 + 10 * i, 8, 2, "aten::op" + std::to_string(i % 7)});
  for (int s = 0; s < 30; ++s)
    ops.push_back({1000 + 10000 * s - 1, 9990, 1, "ProfilerStep#" + std::to_string(s)});
  ExpectSorted(ops);
}

TEST(KinetoSort, ThreadsWrittenOneAfterTheOther) {
  // Two threads interleaved in time, written thread by thread: half the ops move far.
  std::vector<Op> ops;
  for (int tid : {1, 2})
    for (int i = 0; i < 20000; ++i)
      ops.push_back({10 * i + tid * 3, 2, tid, "t" + std::to_string(tid)});
  ExpectSorted(ops);
}

TEST(KinetoSort, ReversedFileAndTies) {
  // Written last to first, with equal starts (longer first, then by name: "b" is seen first)
  // and exact duplicates.
  std::vector<Op> ops;
  for (int i = 12000; i-- > 0;) {
    ops.push_back({100 * (i / 3), 5 + i % 3, 1, "b"});
    ops.push_back({100 * (i / 3), 5 + i % 3, 1, "a"});
  }
  ExpectSorted(ops);
}

TEST(KinetoSort, FewEventsAndOneEvent) {
  ExpectSorted({{5, 1, 1, "x"}, {3, 1, 1, "y"}, {3, 2, 1, "z"}, {4, 0, 2, "w"}});
  ExpectSorted({{5, 1, 1, "x"}});
}

RankTrace Parse(const std::vector<Op>& ops, const std::string& header) {
  std::string text = TraceOf(ops, header);
  FileText f{"time_rank0.json", text, false, text.size()};
  Job job;
  auto st = ingest::ParseKineto(f, job);
  EXPECT_TRUE(st) << st.error().ToString();
  ingest::FinishTraceSet(job);
  return job.trace.ranks.empty() ? RankTrace{} : job.trace.ranks[0];
}

TEST(KinetoTimeBase, RelativeTimesGetTheBase) {
  RankTrace t = Parse({{1000, 5, 1, "a"}, {2000, 5, 1, "b"}},
                      R"("baseTimeNanoseconds": 1727000000000000000, )");
  ASSERT_EQ(t.HostOpCount(), 2u);
  EXPECT_EQ(t.base_time_ns, 1727000000000000000);
  EXPECT_EQ(t.HostOps()[0].start_ns, 1727000000000000000 + 1000000);
  EXPECT_EQ(t.HostOps()[1].end_ns, 1727000000000000000 + 2005000);
}

TEST(KinetoTimeBase, EpochTimesKeepTheirsDespiteABase) {
  // Integer µs since the epoch (2021-era) with a base written as well: nothing is added.
  const int64_t epoch_us = 1630000000000000;
  RankTrace t = Parse({{epoch_us, 5, 1, "a"}, {epoch_us + 100, 5, 1, "b"}},
                      R"("baseTimeNanoseconds": 1727000000000000000, )");
  ASSERT_EQ(t.HostOpCount(), 2u);
  EXPECT_EQ(t.HostOps()[0].start_ns, epoch_us * 1000);
  EXPECT_EQ(t.HostOps()[1].end_ns, (epoch_us + 105) * 1000);
}

}  // namespace
}  // namespace commdx
