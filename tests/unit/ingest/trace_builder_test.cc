// The Kineto reader and RankBuilder below the importer: the limits on a part, blank runs between
// events, flow links for traces without correlation ids in args, and the start order of the
// model's ops whatever the file's order. (Split from trace_ingest_test.cc, which tests whole
// files through the importer.)
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "base/file.h"
#include "ingest/kineto/event_parser.h"
#include "ingest/kineto/json/byte_source.h"
#include "ingest/kineto/json/document_reader.h"
#include "ingest/kineto/kineto_importer.h"
#include "ingest/trace_build/rank_builder.h"

namespace commdx {
namespace {

std::string Data(const std::string& name) {
  return std::string(COMMDX_SOURCE_DIR) + "/tests/data/traces/" + name;
}

}  // namespace
}  // namespace commdx

namespace commdx {
namespace {

using ingest::kineto::EventParser;
using ingest::trace_build::RankBuilder;

// The rank the reader and the builder make of `json` (a read error fails the test).
RankTrace ReadRank(const std::string& json, const std::string& name) {
  auto src = ingest::kineto::MemorySource(json, name);
  RankBuilder b(name);
  EventParser p(name, b);
  auto r = ingest::kineto::ReadDocument(*src, name, p, {});
  if (!r) ADD_FAILURE() << r.error().ToString();
  return b.Finish(0);
}

TEST(KinetoIngest, OverSizedPartIsAClearError) {
  // A trace without line breaks is one part; simdjson cannot take one over 4 GiB. The limit is
  // lowered here so that a small file shows the error.
  auto text = ReadFile(Data("minified_rank0.json"));
  ASSERT_TRUE(text);
  auto src = ingest::kineto::MemorySource(text->data, "minified_rank0.json");
  RankBuilder b("minified_rank0.json");
  EventParser p("minified_rank0.json", b);
  ingest::kineto::ReaderOptions o;
  o.max_part_bytes = 1000;
  auto r = ingest::kineto::ReadDocument(*src, "minified_rank0.json", p, o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("4 GiB"), std::string::npos) << r.error().ToString();
  EXPECT_EQ(ExitCodeFor(r.error().code), 3);
}

// Traces without correlation ids in args link a launch to its GPU op through the ac2g flow
// pair: 's' at the call's ts, 'f' at the op's. Where two flows of one kind share a ts the first
// in the file counts; flows may come in any time order.
TEST(KinetoIngest, FlowsLinkLaunchesFirstFlowAtATimeWins) {
  std::string text = R"j({"traceEvents": [
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 30, "dur": 2},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 2},
  {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 40, "dur": 5},
  {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 20, "dur": 5},
  {"ph": "s", "id": 8, "pid": 1, "tid": 1, "ts": 30, "cat": "ac2g", "name": "ac2g"},
  {"ph": "f", "id": 8, "pid": 0, "tid": 7, "ts": 40, "cat": "ac2g", "name": "ac2g", "bp": "e"},
  {"ph": "s", "id": 5, "pid": 1, "tid": 1, "ts": 10, "cat": "ac2g", "name": "ac2g"},
  {"ph": "s", "id": 6, "pid": 1, "tid": 1, "ts": 10, "cat": "ac2g", "name": "ac2g"},
  {"ph": "f", "id": 5, "pid": 0, "tid": 7, "ts": 20, "cat": "ac2g", "name": "ac2g", "bp": "e"},
  {"ph": "f", "id": 9, "pid": 0, "tid": 7, "ts": 20, "cat": "ac2g", "name": "ac2g", "bp": "e"}
]})j";
  RankTrace t = ReadRank(text, "flows.json");
  ASSERT_EQ(t.gpu_ops.size(), 2u);
  ASSERT_EQ(t.runtime.size(), 2u);
  // The call at ts 10 takes id 5, not the later 6; the kernel at ts 20 id 5, not the later 9:
  // any other pick leaves them unlinked.
  EXPECT_EQ(t.gpu_ops[0].launch, 0);
  EXPECT_EQ(t.gpu_ops[1].launch, 1);
  EXPECT_EQ(t.runtime[0].gpu_op, 0);
  EXPECT_EQ(t.runtime[1].gpu_op, 1);
}

TEST(KinetoIngest, LongBlankGapBetweenEventsIsNotOnePart) {
  // A run of blanks between two events, far longer than one part may be (a trace padded on
  // disk; badinput_trace_over_4gib has 4.25 GiB of them): the cut after "}," does not wait for
  // the next '{', and the blanks are skipped without being kept, so the parts stay small.
  auto ev = [](int ts) {
    return R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": )" +
           std::to_string(ts) + R"(, "dur": 5})";
  };
  std::string json = "{\"traceEvents\": [" + ev(10) + ",\n";
  json.append(24u << 20, ' ');
  json += ev(20) + ",\n" + ev(30) + "]}";
  auto src = ingest::kineto::MemorySource(json, "gap.json");
  RankBuilder b("gap.json");
  EventParser p("gap.json", b);
  ingest::kineto::ReaderOptions o;
  o.part_bytes = 4096;
  o.max_part_bytes = 1u << 20;  // the gap alone is 24 times this
  auto r = ingest::kineto::ReadDocument(*src, "gap.json", p, o);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_GE(r->parts, 2u);
  RankTrace t = b.Finish(0);
  ASSERT_EQ(t.gpu_ops.size(), 3u);
  EXPECT_EQ(t.gpu_ops[2].start_ns - t.gpu_ops[0].start_ns, 20'000);
}

}  // namespace
}  // namespace commdx

namespace commdx {
namespace {

// 3000 CPU ops written in a scrambled order, with many equal starts and equal (start, end)
// pairs: the model holds them by start, longer first, then by name, then in file order. With
// `skew`, one op in 7 starts far later, so that most fall into one time bucket of the sort.
void CheckStartOrder(bool skew) {
  SCOPED_TRACE(skew ? "skewed" : "spread");
  struct Op {
    int64_t ts, dur;
    int name, index;
  };
  std::vector<Op> ops;
  uint64_t x = 12345;
  auto next = [&x](uint64_t mod) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int64_t>((x >> 33) % mod);
  };
  std::string json = "{\"traceEvents\": [\n";
  for (int i = 0; i < 3000; ++i) {
    Op op{next(400) * 1000 + (skew && i % 7 == 0 ? 500000000 : 0), next(3) + 1,
          static_cast<int>(next(4)), i};
    ops.push_back(op);
    json += (i ? ",\n" : "") + std::string("{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op") +
            std::to_string(op.name) + "\", \"pid\": 1, \"tid\": " + std::to_string(i) +
            ", \"ts\": " + std::to_string(op.ts) + ", \"dur\": " + std::to_string(op.dur) + "}";
  }
  json += "\n]}\n";
  FileText f{"scrambled_rank0.json", json, false, json.size()};
  Job job;
  ASSERT_TRUE(ingest::ParseKineto(f, job));
  ingest::FinishTraceSet(job);
  const RankTrace& t = job.trace.ranks.at(0);
  ASSERT_EQ(t.HostOpCount(), ops.size());
  // Names are interned in first-seen order, so compare them by id as the model does.
  std::vector<uint32_t> id_of(4);
  for (int n = 0; n < 4; ++n)
    for (uint32_t id = 0; id < t.names.size(); ++id)
      if (t.names[id] == "op" + std::to_string(n)) id_of[n] = id;
  std::stable_sort(ops.begin(), ops.end(), [&](const Op& a, const Op& b) {
    if (a.ts != b.ts) return a.ts < b.ts;
    if (a.dur != b.dur) return a.dur > b.dur;
    return id_of[a.name] < id_of[b.name];
  });
  const std::vector<HostOp> host_ops = t.HostOps();
  for (size_t i = 0; i < ops.size(); ++i) {
    ASSERT_EQ(host_ops[i].start_ns, ops[i].ts * 1000) << i;
    ASSERT_EQ(host_ops[i].end_ns, (ops[i].ts + ops[i].dur) * 1000) << i;
    ASSERT_EQ(host_ops[i].name, id_of[ops[i].name]) << i;
    // Each op has a thread of its own (tid = its place in the file): ties keep the file order.
    ASSERT_EQ(t.threads[host_ops[i].thread].id, std::to_string(ops[i].index)) << i;
  }
}

TEST(KinetoIngest, EventsComeOutInStartOrderWhateverTheFileOrder) {
  CheckStartOrder(false);
  CheckStartOrder(true);
}

// A GPU op's launch is the first runtime call (in start order) with its correlation id, however
// the ids are spread: dense from 1 (a short trace), ~1 in 5 of a range far from 0 (a window of
// a long job), ranges far apart (windows joined), and ids near int64's top; ids taken twice,
// GPU ops whose call was not kept, calls that launched nothing.
TEST(KinetoIngest, LaunchesLinkByCorrelationHoweverTheIdsAreSpread) {
  const std::vector<std::vector<int64_t>> shapes = {
      {1, 2, 3, 4, 5, 6, 7, 8},
      {5'000'000, 5'000'005, 5'000'010, 5'000'015, 5'000'020, 5'000'025},
      {40, 45, 50, 900'000'040, 900'000'045, 900'000'050, 7'000'000'000'040},
      {(int64_t{1} << 62) + 3, (int64_t{1} << 62) + 8, INT64_MAX - 1, 3},
  };
  for (const std::vector<int64_t>& ids : shapes) {
    std::string json = R"({"traceEvents": [)";
    auto add = [&json](const std::string& cat, int tid, int64_t ts, int64_t corr) {
      json += json.back() == '[' ? "\n" : ",\n";
      json += R"({"ph": "X", "cat": ")" + cat + R"(", "name": "n", "pid": 1, "tid": )" +
              std::to_string(tid) + R"(, "ts": )" + std::to_string(ts) +
              R"(, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": )" +
              std::to_string(corr) + "}}";
    };
    // Written latest first. Call k starts at 10 k + 10; its kernel at 10 k + 15. The first id
    // is taken again by a later call (which must not win); one kernel's call is not kept.
    for (size_t k = ids.size(); k-- > 0;) {
      add("cuda_runtime", 1, 10 * static_cast<int64_t>(k) + 10, ids[k]);
      add("kernel", 7, 10 * static_cast<int64_t>(k) + 15, ids[k]);
    }
    add("cuda_runtime", 1, 1000, ids[0]);
    add("kernel", 7, 1005, 123'456'789);
    add("cuda_runtime", 1, 1010, 987'654'321);
    json += "\n]}";
    RankTrace t = ReadRank(json, "launch.json");
    ASSERT_EQ(t.gpu_ops.size(), ids.size() + 1);
    ASSERT_EQ(t.runtime.size(), ids.size() + 2);
    for (size_t k = 0; k < ids.size(); ++k) {
      EXPECT_EQ(t.gpu_ops[k].launch, static_cast<int32_t>(k)) << ids[k];
      EXPECT_EQ(t.runtime[k].gpu_op, static_cast<int32_t>(k)) << ids[k];
    }
    EXPECT_EQ(t.gpu_ops.back().launch, -1);       // its call was not kept
    EXPECT_EQ(t.runtime[ids.size()].gpu_op, -1);  // the id again, later: not the launch
    EXPECT_EQ(t.runtime.back().gpu_op, -1);       // launched nothing
  }
}

}  // namespace
}  // namespace commdx
