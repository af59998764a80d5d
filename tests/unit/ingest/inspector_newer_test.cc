// The NCCL Inspector importer on the JSONL of the plugins of NCCL 2.29 and 2.30. No capture of
// those is at hand (tests/data/inspector holds 2.28.9's): every line below is WRITTEN FROM THE
// SOURCE, not captured. Each follows the key order of the writer code it names in
// /work/.mirror/NVIDIA+nccl/repo (git show TAG:PATH), integers as "%d" / "%lu", doubles as "%lf"
// (six decimals, json.cc jsonDouble), strings escaped as json.cc's sanitizeJson does ('/' as
// "\/"); the values are made up but consistent (bandwidths computed the way the plugin does).
#include <gtest/gtest.h>

#include <string>

#include "ingest/inspector/inspector_importer.h"
#include "ingest/registry.h"

namespace commdx::ingest {
namespace {

// v2.29.3-1 ext-profiler/inspector/inspector.cc:341-350 (header), :370-384 (metadata),
// :478-504 (coll_perf), :549-563 (the line): the writer of 2.28.9, unchanged; git_rev from
// `git describe --always --dirty` (Makefile:118). ReduceScatter of 2 ranks: algobw =
// 4194304 * 2 / 96 us, busbw = algobw / 2.
const std::string k229 =
    R"({"header":{"id":"0x5e2f8a41c07d13","rank":1,"n_ranks":2,"nnodes":1},"metadata":{"inspector_output_format_version":"v4.0","git_rev":"v2.29.3-1","rec_mechanism":"nccl_profiler_interface","dump_timestamp_us":1801234567890123,"hostname":"node07","pid":2211},"coll_perf":{"coll":"ReduceScatter","coll_sn":41,"coll_msg_size_bytes":4194304,"coll_exec_time_us":96,"coll_timing_source":"kernel_gpu","coll_algobw_gbs":87.381333,"coll_busbw_gbs":43.690667}})";

// v2.30.7-1 plugins/profiler/inspector/inspector_json.cc:26-38 (header with "comm_name" after
// "id"), :58-72 (metadata, still "v4.0"), :204-229 (coll_perf), :94-137 (verbose, two
// channels), :308-320 (the line).
const std::string k230 =
    R"({"header":{"id":"0x7c1e52d9a0b346","comm_name":"DP Group 0","rank":0,"n_ranks":2,"nnodes":1},"metadata":{"inspector_output_format_version":"v4.0","git_rev":"v2.30.7-1","rec_mechanism":"nccl_profiler_interface","dump_timestamp_us":1801234568001234,"hostname":"node07","pid":2210},"coll_perf":{"coll":"AllReduce","coll_sn":12,"coll_msg_size_bytes":33554432,"coll_exec_time_us":180,"coll_timing_source":"kernel_gpu","coll_algobw_gbs":186.413511,"coll_busbw_gbs":186.413511}})";
const std::string k230Verbose =
    R"({"header":{"id":"0x7c1e52d9a0b346","comm_name":"DP Group 0","rank":0,"n_ranks":2,"nnodes":1},"metadata":{"inspector_output_format_version":"v4.0","git_rev":"v2.30.7-1","rec_mechanism":"nccl_profiler_interface","dump_timestamp_us":1801234568001240,"hostname":"node07","pid":2210},"coll_perf":{"coll":"AllReduce","coll_sn":13,"coll_msg_size_bytes":33554432,"coll_exec_time_us":180,"coll_timing_source":"kernel_gpu","coll_algobw_gbs":186.413511,"coll_busbw_gbs":186.413511,"event_trace_sn":{"coll_start_sn":1,"coll_stop_sn":2,"kernel_events":[{"channel_id":0,"kernel_start_sn":3,"kernel_stop_sn":7,"kernel_record_sn":5},{"channel_id":1,"kernel_start_sn":4,"kernel_stop_sn":8,"kernel_record_sn":6}]},"event_trace_ts":{"coll_start_ts":1801234567990100,"coll_stop_ts":1801234567990112,"kernel_events":[{"channel_id":0,"kernel_start_ts":1801234567990140,"kernel_stop_ts":1801234567990318,"kernel_record_ts":1801234567990318},{"channel_id":1,"kernel_start_ts":1801234567990138,"kernel_stop_ts":1801234567990320,"kernel_record_ts":1801234567990319}]}}})";

// v2.30.7-1 inspector_json.cc:231-258 (p2p_perf) in place of coll_perf, :353-365 (the line);
// p2p_sn from inspector_plugin.cc:301 (per communicator, from 1, sends and receives together).
// algobw = busbw = 16777216 / 412 us.
const std::string k230Send =
    R"({"header":{"id":"0x7c1e52d9a0b346","comm_name":"DP Group 0","rank":0,"n_ranks":2,"nnodes":1},"metadata":{"inspector_output_format_version":"v4.0","git_rev":"v2.30.7-1","rec_mechanism":"nccl_profiler_interface","dump_timestamp_us":1801234568001251,"hostname":"node07","pid":2210},"p2p_perf":{"p2p":"Send","p2p_sn":3,"p2p_peer":1,"p2p_msg_size_bytes":16777216,"p2p_exec_time_us":412,"p2p_timing_source":"kernel_gpu","p2p_algobw_gbs":40.721398,"p2p_busbw_gbs":40.721398}})";
// The same with NCCL_INSPECTOR_DUMP_VERBOSE=1: inspector_json.cc:139-182 (p2p_start_*).
const std::string k230RecvVerbose =
    R"({"header":{"id":"0x7c1e52d9a0b346","comm_name":"DP Group 0","rank":0,"n_ranks":2,"nnodes":1},"metadata":{"inspector_output_format_version":"v4.0","git_rev":"v2.30.7-1","rec_mechanism":"nccl_profiler_interface","dump_timestamp_us":1801234568001262,"hostname":"node07","pid":2210},"p2p_perf":{"p2p":"Recv","p2p_sn":4,"p2p_peer":1,"p2p_msg_size_bytes":16777216,"p2p_exec_time_us":405,"p2p_timing_source":"kernel_gpu","p2p_algobw_gbs":41.425225,"p2p_busbw_gbs":41.425225,"event_trace_sn":{"p2p_start_sn":1,"p2p_stop_sn":2,"kernel_events":[{"channel_id":0,"kernel_start_sn":3,"kernel_stop_sn":5,"kernel_record_sn":4}]},"event_trace_ts":{"p2p_start_ts":1801234567995010,"p2p_stop_ts":1801234567995019,"kernel_events":[{"channel_id":0,"kernel_start_ts":1801234567995044,"kernel_stop_ts":1801234567995451,"kernel_record_ts":1801234567995450}]}}})";

Job Parse(const std::string& text, Status* status = nullptr) {
  Job job;
  Status s = ParseInspector({"node07-pid2210.log", text}, job);
  if (status) *status = std::move(s);
  return job;
}

// The message of the first `id` entry in the job's input-quality table, "" when none.
std::string Note(const Job& job, std::string_view id) {
  for (const auto& d : job.quality.entries())
    if (d.id == id) return d.message;
  return "";
}

TEST(InspectorNewer, Nccl229LinesAreRecognisedAndReadAsBefore) {
  const Importer* imp = SniffImporter(k229 + "\n");
  ASSERT_NE(imp, nullptr);
  EXPECT_EQ(imp->kind, InputKind::kInspector);
  Job job = Parse(k229 + "\n");
  ASSERT_EQ(job.inspector.size(), 1u);
  const InspectorRecord& r = job.inspector[0];
  EXPECT_EQ(r.coll, "ReduceScatter");
  EXPECT_EQ(r.coll_sn, 41u);
  EXPECT_EQ(r.exec_ns, 96000);
  EXPECT_DOUBLE_EQ(r.busbw_gbps, 43.690667);
  EXPECT_EQ(r.comm_name, "");  // 2.29 writes no name
  EXPECT_TRUE(job.quality.empty());
}

TEST(InspectorNewer, Nccl230CollectiveKeepsTheCommunicatorName) {
  for (const std::string& first : {k230, k230Send}) {  // a file may begin with either kind
    const Importer* imp = SniffImporter(first + "\n" + k230);
    ASSERT_NE(imp, nullptr);
    EXPECT_EQ(imp->kind, InputKind::kInspector);
  }
  Job job = Parse(k230 + "\n" + k230Verbose + "\n");
  ASSERT_EQ(job.inspector.size(), 2u);
  const InspectorRecord& r = job.inspector[0];
  EXPECT_EQ(r.comm_id, "0x7c1e52d9a0b346");
  EXPECT_EQ(r.comm_name, "DP Group 0");
  EXPECT_EQ(r.rank, 0);
  EXPECT_EQ(r.n_ranks, 2);
  EXPECT_EQ(r.coll, "AllReduce");
  EXPECT_EQ(r.coll_sn, 12u);
  EXPECT_EQ(r.msg_bytes, 33554432u);
  EXPECT_EQ(r.exec_ns, 180000);
  EXPECT_DOUBLE_EQ(r.busbw_gbps, 186.413511);
  EXPECT_FALSE(r.verbose);
  const InspectorRecord& v = job.inspector[1];
  EXPECT_TRUE(v.verbose);
  EXPECT_EQ(v.channels, 2);
  EXPECT_EQ(v.coll_start_ns, 1801234567990100000);
  EXPECT_EQ(v.kernel_start_ns, 1801234567990138000);  // channel 1 started first
  EXPECT_EQ(v.kernel_stop_ns, 1801234567990320000);
  EXPECT_TRUE(job.quality.empty());
}

TEST(InspectorNewer, Nccl230NamesAsTheWriterEscapesThem) {
  // sanitizeJson (v2.30.7-1 json.cc:158-203) writes '/' as "\/"; a communicator without a name
  // is "unknown" (inspector_json.cc:30-32). Both kept as NCCL had them.
  std::string slash = k230, unnamed = k230;
  slash.replace(slash.find("DP Group 0"), 10, R"(pp\/stage 1)");
  unnamed.replace(unnamed.find("DP Group 0"), 10, "unknown");
  Job job = Parse(slash + "\n" + unnamed + "\n");
  ASSERT_EQ(job.inspector.size(), 2u);
  EXPECT_EQ(job.inspector[0].comm_name, "pp/stage 1");
  EXPECT_EQ(job.inspector[1].comm_name, "unknown");
}

TEST(InspectorNewer, PointToPointLinesAreCountedNotReadNorBad) {
  Job job = Parse(k230Send + "\n" + k230 + "\n" + k230RecvVerbose + "\n");
  ASSERT_EQ(job.inspector.size(), 1u);  // the collective only
  EXPECT_EQ(job.inspector[0].where.line, 2u);
  EXPECT_EQ(job.quality.Count("inspector.p2p_skipped"), 2u);
  EXPECT_EQ(job.quality.Count("inspector.bad_line"), 0u);
  ASSERT_EQ(job.quality.entries().size(), 1u);
  const auto& d = job.quality.entries()[0];
  EXPECT_EQ(d.first.line, 1u);
  EXPECT_NE(d.message.find("Send"), std::string::npos) << d.message;
  // A process that only sent and received (a pipeline stage's file): nothing to read, no error.
  Status s = Ok{};
  Job p2p_only = Parse(k230Send + "\n" + k230RecvVerbose + "\n", &s);
  EXPECT_TRUE(s);
  EXPECT_TRUE(p2p_only.inspector.empty());
  EXPECT_EQ(p2p_only.quality.Count("inspector.p2p_skipped"), 2u);
}

TEST(InspectorNewer, AThirdObjectOfNoKnownKindIsABadLine) {
  std::string other = k230Send;
  other.replace(other.find("\"p2p_perf\""), 10, "\"xyz_perf\"");
  std::string no_op = k230Send;
  no_op.replace(no_op.find("\"p2p\":\"Send\""), 12, "\"p2p\":\"\"");
  Status s = Ok{};
  Job job = Parse(other + "\n" + no_op + "\n", &s);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("p2p_perf"), std::string::npos) << s.error().message;
  EXPECT_EQ(job.quality.Count("inspector.bad_line"), 2u);
  EXPECT_EQ(job.quality.Count("inspector.p2p_skipped"), 0u);
}

TEST(InspectorNewer, Nccl230GapsAreExplainedByItsSizeFloor) {
  // 2.30 keeps every collective in a ring (inspector_json.cc:281-325), but drops those under
  // NCCL_INSPECTOR_DUMP_MIN_SIZE_BYTES (inspector_plugin.cc:425-441): #13 (say, under 8 KiB)
  // is not there.
  std::string sn14 = k230;
  sn14.replace(sn14.find("\"coll_sn\":12"), 12, "\"coll_sn\":14");
  Job job = Parse(k230 + "\n" + sn14 + "\n");
  FinishInspector(job);
  EXPECT_EQ(job.quality.Count("inspector.sn_gaps"), 1u);
  std::string gap = Note(job, "inspector.sn_gaps");
  EXPECT_NE(gap.find("8 KiB"), std::string::npos) << gap;
  EXPECT_EQ(gap.find("one per dump pass"), std::string::npos) << gap;
  std::string missing = Note(job, "inspector.missing_ranks");
  EXPECT_NE(missing.find("0x7c1e52d9a0b346 (\"DP Group 0\")"), std::string::npos) << missing;
  // 2.29's records keep the old reason.
  std::string sn43 = k229;
  sn43.replace(sn43.find("\"coll_sn\":41"), 12, "\"coll_sn\":43");
  Job old = Parse(k229 + "\n" + sn43 + "\n");
  FinishInspector(old);
  gap = Note(old, "inspector.sn_gaps");
  EXPECT_NE(gap.find("one per dump pass"), std::string::npos) << gap;
}

}  // namespace
}  // namespace commdx::ingest
