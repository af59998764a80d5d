// A trace in a summary (docs/summary-format.md, "traces" and "digest"): what is left of the rank
// once it is digested, and the digest itself, read back as written (timeline lists and every
// measure; only the names something refers to kept, renumbered); a summary of another version,
// cut short, or with a field wrong is an error that names the file, the field and what was
// expected. The report a summary gives equals the raw files' (tests/golden/summary_test.cc).
#include "pipeline/summary_digest.h"

#include <gtest/gtest.h>

#include <string>

#include "analysis/rank_measures.h"
#include "base/json_writer.h"
#include "ingest/summary/summarize.h"
#include "ingest/summary/summary_format.h"
#include "ingest/summary/summary_importer.h"

namespace commdx::pipeline {
namespace {

const std::string kTraces = std::string(COMMDX_SOURCE_DIR) + "/tests/data/traces/";
const std::string kExamples = std::string(COMMDX_SOURCE_DIR) + "/examples/";

void Digest(RankTrace& t) { analysis::DigestRank(t, true); }

ingest::summary::Summary Made(const std::vector<std::string>& paths) {
  UseSummaryDigests();
  auto s = ingest::summary::Summarize(paths, {1, "test", Digest});
  EXPECT_TRUE(s.has_value()) << (s ? "" : s.error().message);
  return s ? std::move(s).value() : ingest::summary::Summary{};
}

Result<Job> Read(const std::string& json) {
  UseSummaryDigests();
  Job part;
  COMMDX_TRY(ingest::ParseSummary(FileText{"s.json", json}, part));
  return part;
}

std::string TraceJson(const RankTrace& t) {
  JsonWriter w(0);
  EXPECT_TRUE(ingest::summary::WriteTrace(t, w).has_value());
  return w.str();
}

void ExpectSameTimeline(const analysis::RankTimeline& a, const analysis::RankTimeline& b) {
  auto same = [](const analysis::Intervals& x, const analysis::Intervals& y) {
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i)
      if (x[i].start != y[i].start || x[i].end != y[i].end) return false;
    return true;
  };
  EXPECT_TRUE(same(a.compute, b.compute));
  EXPECT_TRUE(same(a.comm, b.comm));
  EXPECT_TRUE(same(a.busy, b.busy));  // not written: made again from the three above
  EXPECT_TRUE(same(a.idle.queued, b.idle.queued));
  EXPECT_TRUE(same(a.idle.launch, b.idle.launch));
  EXPECT_EQ(a.idle.sync_charges, b.idle.sync_charges);
  EXPECT_EQ(a.idle.host_gaps.size(), b.idle.host_gaps.size());
}

// Real traces (a two-rank skew; bad records; a real 2xH200 DDP capture): each read back with
// its events gone, its digest and the rest of it as written, the timeline exact.
TEST(SummaryDigest, TracesReadBackAsDigested) {
  const std::string skew = kTraces + "skew_rank1.json", bad = kTraces + "bad_records.json",
                    ddp = kExamples + "ddp_data_stall/trace_rank0.json.gz";
  ingest::summary::Summary s = Made({skew, bad, ddp});
  ASSERT_EQ(s.traces, 3u);
  EXPECT_NE(s.json.find("\"version\":3"), std::string::npos);
  auto part = Read(s.json);
  ASSERT_TRUE(part.has_value()) << part.error().message;
  ASSERT_EQ(part->trace.ranks.size(), 3u);
  size_t i = 0;
  for (const auto& path : {skew, bad, ddp}) {
    auto raw = Made({path});  // digested as the summary was
    auto one = Read(raw.json);
    ASSERT_TRUE(one.has_value());
    const RankTrace& t = part->trace.ranks[i++];
    EXPECT_TRUE(t.events_freed);
    EXPECT_TRUE(t.gpu_ops.empty() && t.runtime.empty() && t.HostOpCount() == 0);
    ASSERT_NE(t.derived, nullptr);
    EXPECT_EQ(TraceJson(t), TraceJson(one->trace.ranks[0])) << path;
  }
  // Against the digest made from the events themselves.
  RankTrace built;
  {
    UseSummaryDigests();
    auto direct = ingest::summary::Summarize({ddp}, {1, "test", [&](RankTrace& t) {
                                                       analysis::DigestRank(t, false);
                                                       built = t;
                                                     }});
    ASSERT_TRUE(direct.has_value());
  }
  ASSERT_FALSE(built.gpu_ops.empty());
  const auto read = analysis::DigestOf(part->trace.ranks[2]);
  const auto made = analysis::DigestOf(built);
  ExpectSameTimeline(read->timeline.Unpack(), made->timeline.Unpack());
  const analysis::RankMeasures &a = read->measures, &b = made->measures;
  EXPECT_EQ(a.gpu_ops, b.gpu_ops);
  EXPECT_EQ(a.median_kernel_ns, b.median_kernel_ns);
  EXPECT_EQ(a.data_loader_op, b.data_loader_op);
  EXPECT_EQ(a.gradient_comm_after_backward, b.gradient_comm_after_backward);  // exact
  EXPECT_EQ(a.profiler_cost.ops_per_step, b.profiler_cost.ops_per_step);
  EXPECT_EQ(a.hta.idle_pct, b.hta.idle_pct);
  EXPECT_EQ(a.queued.per_step, b.queued.per_step);
  EXPECT_EQ(a.orphan_starts, b.orphan_starts);
  EXPECT_EQ(a.host_syncs.by_cause, b.host_syncs.by_cause);
  // The names a kernel was charged under survive the renumbering.
  const RankTrace& t = part->trace.ranks[2];
  for (const auto& [id, ns] : a.queued.by_next) {
    bool found = false;
    for (const auto& [bid, bns] : b.queued.by_next)
      found = found || (built.names[bid] == t.names[id] && bns == ns);
    EXPECT_TRUE(found) << t.names[id];
  }
  EXPECT_LT(t.names.size(), built.names.size());  // kernel names nothing refers to are gone
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

TEST(SummaryDigest, BadSummariesSayWhatWasExpected) {
  const std::string good = Made({kTraces + "skew_rank0.json"}).json;
  ASSERT_EQ(ErrorOf(good), "(no error)");
  EXPECT_EQ(ErrorOf(Replaced(good, "\"version\":3", "\"version\":2")),
            "s.json: commdx summary version 2: this commdx reads version 3 (summarise the inputs "
            "again with this commdx, or diagnose with the commdx that made it)");
  EXPECT_EQ(ErrorOf(Replaced(good, "\"format\":\"commdx-summary\"", "\"format\":\"x\"")),
            "s.json: summary field commdx_summary.format: expected \"commdx-summary\", got \"x\"");
  EXPECT_NE(ErrorOf(good.substr(0, good.size() / 2)).find("s.json: not a complete commdx summary"),
            std::string::npos);
  // A column longer than the others; a cell of the wrong type; an index past its table.
  EXPECT_NE(ErrorOf(Replaced(good, "\"collectives\":{\"start_ns\":[",
                             "\"collectives\":{\"start_ns\":[0,"))
                .find("s.json: summary field traces[0].collectives.end_ns: expected as many cells "
                      "as start_ns ("),
            std::string::npos);
  EXPECT_EQ(ErrorOf(Replaced(good, "\"end_ns\":[", "\"end_ns\":[\"x\",")),
            "s.json: summary field traces[0].collectives.end_ns[0]: expected an integer");
  EXPECT_NE(ErrorOf(Replaced(good, "\"main_thread\":", "\"main_thread\":9999,\"x\":"))
                .find("summary field traces[0].main_thread: expected -1 or a thread index"),
            std::string::npos);
  EXPECT_EQ(ErrorOf(Replaced(good, "\"traces\":[", "\"traces\":[1,")),
            "s.json: summary field traces[0]: expected an object");
  EXPECT_EQ(ErrorOf(Replaced(good, "\"kinds\":[\"kineto\"]", "\"kinds\":[\"env_dump\"]")),
            "s.json: summary field inputs[0].kinds: expected names of formats a summary carries "
            "(kineto, nsys, nccl_log, job_log, flight_recorder, fr_analysis, nccl_tests)");
  // The digest: an interval list of odd length, a name index past the names, a measure missing.
  EXPECT_EQ(ErrorOf(Replaced(good, "\"compute\":[", "\"compute\":[5,")),
            "s.json: summary field traces[0].digest.timeline.compute: expected gap and length "
            "pairs");
  EXPECT_EQ(ErrorOf(Replaced(good, "\"compute\":[", "\"compute\":[0,5,")),
            "s.json: summary field traces[0].digest.timeline.compute[0]: expected intervals "
            "inside the trace's first_ns to last_ns");
  EXPECT_EQ(ErrorOf(Replaced(good, "\"last_ns\":", "\"last_ns\":1,\"x\":")),
            "s.json: summary field traces[0].last_ns: expected the trace's last time, not "
            "before first_ns");
  EXPECT_EQ(ErrorOf(Replaced(good, "\"compute\":[", "\"compute\":[5,-1,")),
            "s.json: summary field traces[0].digest.timeline.compute[0]: expected sorted, "
            "disjoint intervals (gaps and lengths >= 0)");
  EXPECT_EQ(
      ErrorOf(Replaced(good, "\"launch_ops\":{\"name\":[", "\"launch_ops\":{\"name\":[99999,")),
      "s.json: summary field traces[0].digest.timeline.launch_ops.ns: expected one value "
      "per name");
  EXPECT_EQ(ErrorOf(Replaced(good, "\"by_next\":{\"name\":[],\"ns\":[]}",
                             "\"by_next\":{\"name\":[99999],\"ns\":[5]}")),
            "s.json: summary field traces[0].digest.measures.queued.by_next.name[0]: expected an "
            "index into the trace's names");
  EXPECT_EQ(ErrorOf(Replaced(good, "\"median_kernel_ns\":", "\"x\":")),
            "s.json: summary field traces[0].digest.measures.median_kernel_ns: expected a value "
            "(missing)");
  EXPECT_EQ(ErrorOf(Replaced(good, "\"idle_pct\":", "\"idle_pct\":\"a\",\"x\":")),
            "s.json: summary field traces[0].digest.measures.hta.idle_pct: expected a number");
}

// A summary of one trace, written around WriteTrace.
std::string OneTrace(const RankTrace& t) {
  return "{\"commdx_summary\":{\"format\":\"commdx-summary\",\"version\":3},\"inputs\":[],"
         "\"skipped\":[],\"texts\":[],\"traces\":[" +
         TraceJson(t) + "],\"quality\":[]}";
}

TEST(SummaryDigest, WhatTheTraceBuilderGuaranteesIsChecked) {
  UseSummaryDigests();
  RankTrace t;
  t.names = {"", "kernel", "AllReduce", "Float"};
  t.threads.push_back({"1", "", 0, false});
  GpuOp a;
  a.start_ns = 100, a.end_ns = 200, a.name = 1;
  t.gpu_ops = {a};
  t.first_ns = 100, t.last_ns = 200;
  Collective c;
  c.name = 2, c.dtype = 3, c.gpu_op = 0, c.type = CollectiveType::kAllReduce;
  c.family = CommFamily::kSymmMem;
  t.collectives = {c};
  Digest(t);
  auto good = Read(OneTrace(t));
  ASSERT_TRUE(good.has_value()) << ErrorOf(OneTrace(t));
  const RankTrace& back = good->trace.ranks[0];
  ASSERT_EQ(back.collectives.size(), 1u);
  EXPECT_EQ(back.Name(back.collectives[0].name), "AllReduce");
  EXPECT_EQ(back.Name(back.collectives[0].dtype), "Float");
  EXPECT_EQ(back.collectives[0].family, CommFamily::kSymmMem);  // written, not derived again
  EXPECT_GE(back.collectives[0].gpu_op, 0);                     // it had a kernel
  // The unused kernel name is not kept.
  EXPECT_EQ(back.names, (std::vector<std::string>{"", "AllReduce", "Float"}));
  // A family code past the list, a world size past 2^24.
  RankTrace bad = t;
  bad.collectives[0].family = static_cast<CommFamily>(9);
  EXPECT_NE(ErrorOf(OneTrace(bad)).find("traces[0].collectives[0]: expected a collective row"),
            std::string::npos);
  bad = t;
  bad.world_size = 1 << 25;
  EXPECT_NE(ErrorOf(OneTrace(bad)).find("expected a rank (-1 to 2^24) and a world size"),
            std::string::npos);
  // A rank with no digest is not summarised.
  RankTrace none = t;
  none.derived = nullptr;
  JsonWriter w(0);
  auto st = ingest::summary::WriteTrace(none, w);
  ASSERT_FALSE(st.has_value());
  EXPECT_NE(st.error().message.find("has none"), std::string::npos);
}

}  // namespace
}  // namespace commdx::pipeline
