// The summary file (ingest/summary, docs/summary-format.md): what Summarize writes reads back into
// the traces and notes it was made from; a summary of another version, cut short, or with a field
// wrong is an error that names the file, the field and what was expected; base64 carries any
// bytes.
#include <gtest/gtest.h>

#include <string>

#include "base/json_writer.h"
#include "ingest/kineto/kineto_importer.h"
#include "ingest/summary/base64.h"
#include "ingest/summary/summarize.h"
#include "ingest/summary/summary_format.h"
#include "ingest/summary/summary_importer.h"

namespace commdx::ingest {
namespace {

const std::string kTraces = std::string(COMMDX_SOURCE_DIR) + "/tests/data/traces/";

std::string TraceJson(const RankTrace& t) {
  JsonWriter w(0);
  summary::WriteTrace(t, w);
  return w.str();
}

summary::Summary Made(const std::vector<std::string>& paths) {
  auto s = summary::Summarize(paths, {1, "test"});
  EXPECT_TRUE(s.has_value()) << (s ? "" : s.error().message);
  return s ? std::move(s).value() : summary::Summary{};
}

Result<Job> Read(const std::string& json) {
  Job part;
  COMMDX_TRY(ParseSummary(FileText{"s.json", json}, part));
  return part;
}

TEST(Summary, TracesAndNotesReadBackAsBuilt) {
  const std::string skew = kTraces + "skew_rank1.json", bad = kTraces + "bad_records.json";
  summary::Summary s = Made({skew, bad});
  ASSERT_TRUE(SniffSummary(s.json));
  EXPECT_EQ(s.traces, 2u);
  auto part = Read(s.json);
  ASSERT_TRUE(part.has_value()) << part.error().message;
  // Each trace as the Kineto importer builds it, every table and fact.
  Job raw;
  for (const auto& path : {skew, bad}) {
    auto text = ReadFile(path);
    ASSERT_TRUE(text.has_value());
    ASSERT_TRUE(ParseKineto(*text, raw).has_value());
  }
  ASSERT_EQ(part->trace.ranks.size(), 2u);
  for (size_t i = 0; i < 2; ++i)
    EXPECT_EQ(TraceJson(part->trace.ranks[i]), TraceJson(raw.trace.ranks[i]));
  const RankTrace& skewed = part->trace.ranks[0];
  EXPECT_FALSE(skewed.gpu_ops.empty() || skewed.HostOpCount() == 0 || skewed.runtime.empty() ||
               skewed.collectives.empty() || skewed.steps.empty());
  // The bad records' notes, counted as the run counted them.
  ASSERT_FALSE(raw.quality.empty());
  ASSERT_EQ(part->quality.entries().size(), raw.quality.entries().size());
  for (size_t i = 0; i < raw.quality.entries().size(); ++i) {
    EXPECT_EQ(part->quality.entries()[i].id, raw.quality.entries()[i].id);
    EXPECT_EQ(part->quality.entries()[i].count, raw.quality.entries()[i].count);
    EXPECT_EQ(part->quality.entries()[i].first.ToString(),
              raw.quality.entries()[i].first.ToString());
  }
  // The files it stands for, for the loader's row.
  ASSERT_EQ(part->inputs.size(), 2u);
  EXPECT_EQ(part->inputs[0].path, skew);
  EXPECT_EQ(part->inputs[0].kinds, std::vector<InputKind>{InputKind::kKineto});
}

TEST(Summary, OnlyItsOwnContentIsRecognised) {
  EXPECT_TRUE(SniffSummary(" {\n \"commdx_summary\": {}}"));
  EXPECT_FALSE(SniffSummary("{\"traceEvents\": [], \"commdx_summary\": {}}"));
  EXPECT_FALSE(SniffSummary("[\"commdx_summary\"]"));
}

std::string Replaced(std::string s, const std::string& from, const std::string& to) {
  size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? s : s.replace(at, from.size(), to);
}

std::string ErrorOf(const std::string& json) {
  auto r = Read(json);
  return r ? std::string("(no error)") : r.error().where.ToString() + ": " + r.error().message;
}

TEST(Summary, BadSummariesSayWhatWasExpected) {
  const std::string good = Made({kTraces + "skew_rank0.json"}).json;
  EXPECT_EQ(ErrorOf(Replaced(good, "\"version\":2", "\"version\":1")),
            "s.json: commdx summary version 1: this commdx reads version 2 (summarise the inputs "
            "again with this commdx, or diagnose with the commdx that made it)");
  EXPECT_EQ(ErrorOf(Replaced(good, "\"format\":\"commdx-summary\"", "\"format\":\"x\"")),
            "s.json: summary field commdx_summary.format: expected \"commdx-summary\", got \"x\"");
  EXPECT_NE(ErrorOf(good.substr(0, good.size() / 2)).find("s.json: not a complete commdx summary"),
            std::string::npos);
  // A column longer than the others; an index past the table it points into.
  EXPECT_NE(ErrorOf(Replaced(good, "\"gpu_ops\":{\"start_ns\":[", "\"gpu_ops\":{\"start_ns\":[0,"))
                .find("s.json: summary field traces[0].gpu_ops.dur_ns: expected as many cells as "
                      "start_ns ("),
            std::string::npos);
  EXPECT_EQ(ErrorOf(Replaced(good, "\"dur_ns\":[", "\"dur_ns\":[\"x\",")),
            "s.json: summary field traces[0].gpu_ops.dur_ns[0]: expected an integer");
  EXPECT_NE(ErrorOf(Replaced(good, "\"main_thread\":", "\"main_thread\":9999,\"x\":"))
                .find("summary field traces[0].main_thread: expected -1 or a thread index"),
            std::string::npos);
  EXPECT_EQ(ErrorOf(Replaced(good, "\"traces\":[", "\"traces\":[1,")),
            "s.json: summary field traces[0]: expected an object");
  EXPECT_EQ(ErrorOf(Replaced(good, "\"kinds\":[\"kineto\"]", "\"kinds\":[\"env_dump\"]")),
            "s.json: summary field inputs[0].kinds: expected names of formats a summary carries "
            "(kineto, nsys, nccl_log, job_log, flight_recorder, fr_analysis, nccl_tests)");
}

// A summary of one trace, written around WriteTrace.
std::string OneTrace(const RankTrace& t) {
  return "{\"commdx_summary\":{\"format\":\"commdx-summary\",\"version\":2},\"inputs\":[],"
         "\"skipped\":[],\"texts\":[],\"traces\":[" +
         TraceJson(t) + "],\"quality\":[]}";
}

TEST(Summary, WhatTheTraceBuilderGuaranteesIsChecked) {
  RankTrace t;
  t.names = {"", "kernel"};
  t.threads.push_back({"1", "", 0, false});
  GpuOp a, b;
  a.start_ns = 100, a.end_ns = 200, a.name = 1;
  b.start_ns = 300, b.end_ns = 350, b.name = 1;
  t.gpu_ops = {a, b};
  ASSERT_TRUE(Read(OneTrace(t)).has_value()) << ErrorOf(OneTrace(t));
  EXPECT_EQ(Read(OneTrace(t))->trace.ranks[0].gpu_ops[1].end_ns, 350);
  // Out of order, a negative duration, a thread past the table, a world size past 2^24.
  RankTrace bad = t;
  std::swap(bad.gpu_ops[0], bad.gpu_ops[1]);
  EXPECT_NE(ErrorOf(OneTrace(bad))
                .find("traces[0].gpu_ops[1]: expected a GPU op row (start "
                      "after the previous row's"),
            std::string::npos);
  bad = t;
  bad.gpu_ops[1].end_ns = 299;
  EXPECT_NE(ErrorOf(OneTrace(bad)).find("traces[0].gpu_ops[1]"), std::string::npos);
  bad = t;
  bad.host_ops.push_back({10, 20, 1, 1, HostOpKind::kCpuOp, 0});
  EXPECT_NE(ErrorOf(OneTrace(bad)).find("traces[0].host_ops[0]: expected a host op row"),
            std::string::npos);
  bad = t;
  bad.world_size = 1 << 25;
  EXPECT_NE(ErrorOf(OneTrace(bad)).find("expected a rank (-1 to 2^24) and a world size"),
            std::string::npos);
}

TEST(Summary, Base64CarriesAnyBytes) {
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  for (size_t n : {0u, 1u, 2u, 3u, 4u, 255u, 256u}) {
    std::string enc = summary::Base64Encode(all.substr(0, n));
    EXPECT_EQ(enc.size() % 4, 0u);
    EXPECT_EQ(summary::Base64Decode(enc), all.substr(0, n));
  }
  EXPECT_EQ(summary::Base64Encode("Man"), "TWFu");
  EXPECT_EQ(summary::Base64Encode("Ma"), "TWE=");
  EXPECT_FALSE(summary::Base64Decode("TWF").has_value());
  EXPECT_FALSE(summary::Base64Decode("TW=u").has_value());
  EXPECT_FALSE(summary::Base64Decode("TW!u").has_value());
}

}  // namespace
}  // namespace commdx::ingest
