// The NCCL Inspector importer: what it recognises, what it reads from a record (both forms), and
// what it does with lines that are not records.
#include <gtest/gtest.h>

#include <string>

#include "ingest/inspector/inspector_importer.h"
#include "ingest/registry.h"

namespace commdx::ingest {
namespace {

// Real lines of tests/data/inspector/ddp_straggler*/ (NCCL 2.28.9), verbose one shortened to one
// channel as the capture has.
const std::string kPlain =
    R"({"header":{"id":"0xb0300b53755d79","rank":1,"n_ranks":2,"nnodes":2},"metadata":{"inspector_output_format_version":"v4.0","git_rev":"v2.28.9-1-dbc86fd0","rec_mechanism":"nccl_profiler_interface","dump_timestamp_us":1796443346651189,"hostname":"vm","pid":1139},"coll_perf":{"coll":"AllReduce","coll_sn":63,"coll_msg_size_bytes":33554432,"coll_exec_time_us":16935,"coll_timing_source":"kernel_gpu","coll_algobw_gbs":1.981366,"coll_busbw_gbs":1.981366}})";
const std::string kVerbose =
    R"({"header":{"id":"0x1d10ff9a2ea963","rank":0,"n_ranks":2,"nnodes":2},"metadata":{"inspector_output_format_version":"v4.0","git_rev":"v2.28.9-1-dbc86fd0","rec_mechanism":"nccl_profiler_interface","dump_timestamp_us":1796443368183669,"hostname":"vm","pid":1224},"coll_perf":{"coll":"AllGather","coll_sn":0,"coll_msg_size_bytes":8,"coll_exec_time_us":7125,"coll_timing_source":"kernel_gpu","coll_algobw_gbs":0.000002,"coll_busbw_gbs":0.000001,"event_trace_sn":{"coll_start_sn":1,"coll_stop_sn":2,"kernel_events":[{"channel_id":0,"kernel_start_sn":3,"kernel_stop_sn":5,"kernel_record_sn":4}]},"event_trace_ts":{"coll_start_ts":1796443368176370,"coll_stop_ts":1796443368176395,"kernel_events":[{"channel_id":0,"kernel_start_ts":1796443368181040,"kernel_stop_ts":1796443368183604,"kernel_record_ts":1796443368183604}]}}})";

Job Parse(const std::string& text, Status* status = nullptr) {
  Job job;
  Status s = ParseInspector({"rank.log", text}, job);
  if (status) *status = std::move(s);
  return job;
}

TEST(InspectorImport, SniffsByContentOnly) {
  EXPECT_TRUE(SniffInspector(kPlain + "\n" + kPlain));
  EXPECT_TRUE(SniffInspector("  \n" + kVerbose));
  EXPECT_FALSE(SniffInspector(R"({"header":{"id":"0x1"},"metadata":{"pid":1}})"));
  EXPECT_FALSE(SniffInspector(R"({"traceEvents":[]})"));
  EXPECT_FALSE(SniffInspector("vm:1:1 [0] NCCL INFO " + kPlain));
  // The registry picks it before every other JSON reader.
  const Importer* imp = SniffImporter(kPlain);
  ASSERT_NE(imp, nullptr);
  EXPECT_EQ(imp->kind, InputKind::kInspector);
}

TEST(InspectorImport, ReadsAPlainRecord) {
  Job job = Parse(kPlain + "\n");
  ASSERT_EQ(job.inspector.size(), 1u);
  const InspectorRecord& r = job.inspector[0];
  EXPECT_EQ(r.comm_id, "0xb0300b53755d79");
  EXPECT_EQ(r.rank, 1);
  EXPECT_EQ(r.n_ranks, 2);
  EXPECT_EQ(r.nnodes, 2);
  EXPECT_EQ(r.pid, 1139);
  EXPECT_EQ(r.hostname, "vm");
  EXPECT_EQ(r.coll, "AllReduce");
  EXPECT_EQ(r.coll_sn, 63u);
  EXPECT_EQ(r.msg_bytes, 33554432u);
  EXPECT_EQ(r.exec_ns, 16935000);
  EXPECT_EQ(r.timing_source, "kernel_gpu");
  EXPECT_DOUBLE_EQ(r.busbw_gbps, 1.981366);
  EXPECT_EQ(r.dump_ns, 1796443346651189000);
  EXPECT_FALSE(r.verbose);
  EXPECT_EQ(r.where.line, 1u);
  EXPECT_TRUE(job.quality.empty());
}

TEST(InspectorImport, ReadsVerboseTimestamps) {
  Job job = Parse(kVerbose);  // no newline at the end: still a whole record
  ASSERT_EQ(job.inspector.size(), 1u);
  const InspectorRecord& r = job.inspector[0];
  EXPECT_TRUE(r.verbose);
  EXPECT_EQ(r.coll_start_ns, 1796443368176370000);
  EXPECT_EQ(r.kernel_start_ns, 1796443368181040000);
  EXPECT_EQ(r.kernel_stop_ns, 1796443368183604000);
  EXPECT_EQ(r.channels, 1);
}

TEST(InspectorImport, BadLineCountedWithItsPlaceTheRestRead) {
  Job job = Parse(kPlain + "\n" + kPlain.substr(0, 90) + "\n\n" + kVerbose + "\n");
  EXPECT_EQ(job.inspector.size(), 2u);
  ASSERT_EQ(job.quality.entries().size(), 1u);
  const auto& d = job.quality.entries()[0];
  EXPECT_EQ(d.id, "inspector.bad_line");
  EXPECT_EQ(d.first.line, 2u);
  EXPECT_EQ(job.inspector[1].where.line, 4u);
}

TEST(InspectorImport, CutLastLineIsItsOwnNote) {
  Job job = Parse(kPlain + "\n" + kVerbose.substr(0, 200));
  EXPECT_EQ(job.inspector.size(), 1u);
  EXPECT_EQ(job.quality.Count("inspector.cut_last_line"), 1u);
  EXPECT_EQ(job.quality.Count("inspector.bad_line"), 0u);
}

TEST(InspectorImport, MissingFieldNamedAndRankChecked) {
  std::string no_sn = kPlain;
  no_sn.replace(no_sn.find("\"coll_sn\""), 9, "\"coll_sx\"");
  std::string bad_rank = kPlain;
  bad_rank.replace(bad_rank.find("\"rank\":1"), 8, "\"rank\":7");
  Status s = Ok{};
  Job job = Parse(no_sn + "\n" + bad_rank + "\n", &s);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("coll_sn"), std::string::npos) << s.error().message;
  EXPECT_EQ(s.error().where.line, 1u);
  EXPECT_EQ(job.quality.Count("inspector.bad_line"), 2u);
}

TEST(InspectorImport, OtherVersionSkippedAndAnErrorWhenAlone) {
  std::string v5 = kPlain;
  v5.replace(v5.find("\"v4.0\""), 6, "\"v5.0\"");
  Status s = Ok{};
  Job job = Parse(v5 + "\n" + kPlain + "\n", &s);
  EXPECT_TRUE(s);
  EXPECT_EQ(job.inspector.size(), 1u);
  EXPECT_EQ(job.quality.Count("inspector.other_version"), 1u);
  Job alone = Parse(v5 + "\n", &s);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("v5.0"), std::string::npos);
}

TEST(InspectorImport, FinishNotesDuplicatesMissingRanksAndGaps) {
  std::string sn65 = kPlain;
  sn65.replace(sn65.find("\"coll_sn\":63"), 12, "\"coll_sn\":65");
  Job job = Parse(kPlain + "\n" + sn65 + "\n" + kPlain + "\n");
  FinishInspector(job);
  EXPECT_EQ(job.inspector.size(), 2u);
  EXPECT_EQ(job.quality.Count("inspector.duplicate_record"), 1u);
  EXPECT_EQ(job.quality.Count("inspector.missing_ranks"), 1u);  // rank 0 of 2 never seen
  EXPECT_EQ(job.quality.Count("inspector.sn_gaps"), 1u);        // 64 not recorded
}

}  // namespace
}  // namespace commdx::ingest
