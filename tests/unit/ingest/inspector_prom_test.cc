// The NCCL Inspector importer's Prometheus mode: what it recognises, how three samples become one
// record, and what it does with lines that are not its samples. The real capture is read in
// tests/golden/inspector_prom_capture_test.cc; the lines here follow the plugin's own format
// string (ext-profiler/inspector/inspector_prom.cc, v2.29.3-1) with chosen values.
#include <gtest/gtest.h>

#include <string>

#include "ingest/inspector/inspector_importer.h"
#include "ingest/registry.h"

namespace commdx::ingest {
namespace {

std::string Labels(const std::string& sn, const std::string& size, int rank = 0) {
  return "comm_id=\"0x7a4f0c3e21d95b81\",hostname=\"node-a\",rank=\"" + std::to_string(rank) +
         "\",slurm_job=\"unknown\",slurm_job_id=\"unknown\",nranks=\"2\",n_nodes=\"2\","
         "gpu_device_id=\"GPU0\",collective=\"AllReduce\",coll_sn=\"" +
         sn + "\",timestamp=\"2026-12-06T01:20:31Z\",message_size=\"" + size + "\"";
}

std::string Triple(const std::string& sn, const std::string& size, int rank = 0) {
  std::string l = Labels(sn, size, rank);
  return "nccl_algorithm_bandwidth_gbs{" + l + "} 2.5\nnccl_bus_bandwidth_gbs{" + l +
         "} 2.5\nnccl_collective_exec_time_microseconds{" + l + "} 4000\n";
}

Job Parse(const std::string& text, Status* status = nullptr) {
  Job job;
  Status s = ParseInspectorProm({"nccl_inspector_metrics_GPU-1.prom", text}, job);
  if (status) *status = std::move(s);
  return job;
}

TEST(InspectorProm, SniffsItsMetricNamesAtALineStart) {
  EXPECT_TRUE(SniffInspectorProm(Triple("1", "9.54MB")));
  EXPECT_TRUE(SniffInspectorProm("# HELP go_goroutines x\ngo_goroutines 8\n" + Triple("1", "1KB")));
  EXPECT_FALSE(SniffInspectorProm("see nccl_bus_bandwidth_gbs{rank=\"0\"} in the docs\n"));
  EXPECT_FALSE(SniffInspectorProm("nccl_bus_bandwidth_gbs_total 3\n"));
  const Importer* imp = SniffImporter(Triple("1", "9.54MB"));
  ASSERT_NE(imp, nullptr);
  EXPECT_EQ(imp->kind, InputKind::kInspectorProm);
}

TEST(InspectorProm, ThreeSamplesMakeOneRecord) {
  Job job = Parse(Triple("1187", "9.54MB"));
  ASSERT_EQ(job.inspector.size(), 1u);
  const InspectorRecord& r = job.inspector[0];
  EXPECT_EQ(r.comm_id, "0x7a4f0c3e21d95b81");
  EXPECT_EQ(r.rank, 0);
  EXPECT_EQ(r.n_ranks, 2);
  EXPECT_EQ(r.nnodes, 2);
  EXPECT_EQ(r.hostname, "node-a");
  EXPECT_EQ(r.coll, "AllReduce");
  EXPECT_EQ(r.coll_sn, 1187u);
  EXPECT_EQ(r.exec_ns, 4000000);
  EXPECT_DOUBLE_EQ(r.busbw_gbps, 2.5);
  // 9.54 MiB as the plugin rounds it: within 0.5 % of the real size.
  EXPECT_NEAR(static_cast<double>(r.msg_bytes), 9.54 * 1048576, 1);
  EXPECT_EQ(r.dump_ns, 1796520031000000000);  // 2026-12-06T01:20:31Z
  EXPECT_EQ(r.where.line, 1u);
  EXPECT_TRUE(job.quality.empty());
}

TEST(InspectorProm, SizesInEveryUnit) {
  Job job = Parse(Triple("1", "512B") + Triple("2", "1.00KB") + Triple("3", "2.00GB"));
  ASSERT_EQ(job.inspector.size(), 3u);
  EXPECT_EQ(job.inspector[0].msg_bytes, 512u);
  EXPECT_EQ(job.inspector[1].msg_bytes, 1024u);
  EXPECT_EQ(job.inspector[2].msg_bytes, 2147483648u);
}

TEST(InspectorProm, NodeExporterPageOtherMetricsCountedNotRead) {
  std::string page =
      "# HELP go_gc_duration_seconds A summary.\n# TYPE go_gc_duration_seconds summary\n"
      "go_gc_duration_seconds{quantile=\"0.5\"} 3.1e-05\n"
      "# HELP nccl_bus_bandwidth_gbs Metric read from /var/lib/node_exporter/x.prom\n"
      "# TYPE nccl_bus_bandwidth_gbs untyped\n" +
      Triple("7", "32.00MB", 1) + "node_load1 0.52\n";
  Job job = Parse(page);
  ASSERT_EQ(job.inspector.size(), 1u);
  EXPECT_EQ(job.inspector[0].rank, 1);
  EXPECT_EQ(job.inspector[0].where.line, 6u);
  ASSERT_EQ(job.quality.entries().size(), 1u);
  EXPECT_EQ(job.quality.entries()[0].id, "inspector_prom.other_metrics");
  EXPECT_NE(job.quality.entries()[0].message.find("2 samples"), std::string::npos);
}

TEST(InspectorProm, EscapedLabelValuesAndATimestampColumn) {
  std::string l = Labels("4", "1.00MB");
  std::string host = "hostname=\"node-a\"";
  l.replace(l.find(host), host.size(), "hostname=\"we\\\"ird\\\\host\"");
  std::string text = "nccl_bus_bandwidth_gbs{" + l + "} 1.5 1796520031000\n" +
                     "nccl_collective_exec_time_microseconds{" + l + ",} 700\n";
  Job job = Parse(text);
  ASSERT_EQ(job.inspector.size(), 1u);
  EXPECT_TRUE(job.quality.empty());
  EXPECT_EQ(job.inspector[0].hostname, "we\"ird\\host");
  EXPECT_EQ(job.inspector[0].exec_ns, 700000);
  EXPECT_DOUBLE_EQ(job.inspector[0].algbw_gbps, 0);  // no algbw sample: unknown, 0
}

TEST(InspectorProm, BadLinesNamedTheRestRead) {
  std::string l = Labels("9", "4.00MB");
  std::string text = Triple("8", "4.00MB") + "nccl_bus_bandwidth_gbs{" + l + " 3\n" +
                     "nccl_bus_bandwidth_gbs{" + l + "} fast\n";
  Job job = Parse(text);
  ASSERT_EQ(job.inspector.size(), 1u);
  ASSERT_EQ(job.quality.entries().size(), 1u);
  const DiagEntry& d = job.quality.entries()[0];
  EXPECT_EQ(d.id, "inspector_prom.bad_line");
  EXPECT_EQ(d.count, 2u);
  EXPECT_EQ(d.first.line, 4u);
  EXPECT_NE(d.message.find("'}'"), std::string::npos) << d.message;
  Job one = Parse(Triple("8", "4.00MB") + "nccl_bus_bandwidth_gbs{" + l + "} fast\n");
  ASSERT_EQ(one.quality.entries().size(), 1u);
  EXPECT_NE(one.quality.entries()[0].message.find("a number, not 'fast'"), std::string::npos);
}

TEST(InspectorProm, SamplesWithoutAnExecutionTimeOrWithBadRanksAreSkipped) {
  std::string l = Labels("3", "1.00MB");
  Status s = Ok{};
  Job job = Parse("nccl_bus_bandwidth_gbs{" + l + "} 3\n", &s);
  EXPECT_FALSE(s);
  EXPECT_NE(s.error().message.find("nccl_collective_exec_time_microseconds"), std::string::npos);
  EXPECT_EQ(s.error().where.line, 1u);
  Job bad = Parse(Triple("3", "1.00MB", 5), &s);  // rank 5 of 2
  EXPECT_FALSE(s);
  EXPECT_NE(s.error().message.find("out of range"), std::string::npos);
  Job none = Parse("# nothing here\nnode_load1 0.5\n", &s);
  EXPECT_FALSE(s);
  EXPECT_NE(s.error().message.find("no NCCL Inspector sample"), std::string::npos);
}

TEST(InspectorProm, TwoDumpPassesAreTwoRecords) {
  std::string second = Triple("1190", "9.54MB");
  second.replace(second.find("01:20:31Z"), 9, "01:21:01Z");
  second.replace(second.find("01:20:31Z"), 9, "01:21:01Z");
  second.replace(second.find("01:20:31Z"), 9, "01:21:01Z");
  Job job = Parse(Triple("1187", "9.54MB") + second);
  ASSERT_EQ(job.inspector.size(), 2u);
  EXPECT_EQ(job.inspector[1].coll_sn, 1190u);
  EXPECT_EQ(job.inspector[1].dump_ns - job.inspector[0].dump_ns, 30000000000);
}

// NCCL 2.30's aggregated form, with the count, sum and percentile samples later plugins add (the
// count's extra percentile_samples label does not split the bucket; mean = sum / count).
TEST(InspectorProm, AggregatedBucketWithCountSumAndPercentiles) {
  const std::string l =
      "version=\"v5.1\",slurm_job_id=\"1\",node=\"n0\",gpu=\"GPU1\",comm_name=\"DP\","
      "n_nodes=\"2\",nranks=\"16\",collective=\"AllReduce\",message_size=\"1-2MB\","
      "algo_proto=\"TREE_LL128\"";
  Job job = Parse("nccl_bus_bandwidth_gbs{" + l + "} 34.2887\n" + "nccl_collective_count{" + l +
                  ",percentile_samples=\"12\"} 40\n" +
                  "nccl_collective_exec_time_sum_microseconds{" + l + "} 2400\n" +
                  "nccl_collective_exec_time_p50_microseconds{" + l + "} 55\n" +
                  "nccl_collective_exec_time_p99_microseconds{" + l + "} 90\n" +
                  "nccl_collective_slow_event_exec_time_microseconds{" + l +
                  ",top_index=\"0\"} 91\n");
  EXPECT_TRUE(job.inspector.empty());
  ASSERT_EQ(job.inspector_buckets.size(), 1u);
  const InspectorBucket& b = job.inspector_buckets[0];
  EXPECT_EQ(b.comm, "DP");
  EXPECT_EQ(b.node, "n0");
  EXPECT_EQ(b.gpu, "GPU1");
  EXPECT_EQ(b.n_ranks, 16);
  EXPECT_EQ(b.nnodes, 2);
  EXPECT_EQ(b.op, "AllReduce");
  EXPECT_FALSE(b.p2p);
  EXPECT_EQ(b.size_lo, 1u << 20);
  EXPECT_EQ(b.size_hi, 2u << 20);
  EXPECT_EQ(b.size_label, "1-2MB");
  EXPECT_EQ(b.algo_proto, "TREE_LL128");
  EXPECT_DOUBLE_EQ(b.busbw_gbps, 34.2887);
  EXPECT_DOUBLE_EQ(b.exec_us, 60);
  EXPECT_EQ(b.count, 40);
  EXPECT_DOUBLE_EQ(b.p99_us, 90);
  // The slow-event samples are a metric this commdx does not read: named, not dropped silently.
  ASSERT_EQ(job.quality.entries().size(), 1u);
  EXPECT_NE(job.quality.entries()[0].message.find("nccl_collective_slow_event_exec_time"),
            std::string::npos);
}

// Numbers no plugin writes, as a fuzzer would: refused or left unknown, never cast out of range.
TEST(InspectorProm, HugeOrNotANumberValuesAreNotTrusted) {
  const std::string l =
      "version=\"v5.1\",node=\"n0\",gpu=\"GPU0\",comm_name=\"c\",n_nodes=\"1\",nranks=\"2\","
      "collective=\"AllReduce\",message_size=\"nan-1MB\"";
  Job job = Parse("nccl_collective_count{" + l + "} 1e30\n" +
                  "nccl_collective_exec_time_microseconds{" + l + "} 12\n");
  ASSERT_EQ(job.inspector_buckets.size(), 1u);
  EXPECT_EQ(job.inspector_buckets[0].count, 0);  // 1e30 operations: not a count
  EXPECT_EQ(job.inspector_buckets[0].size_lo, 0u);
  // A timestamp past 2262 (found by the fuzzer: year 4052) does not fit in nanoseconds.
  std::string far = Triple("5", "1.00MB");
  for (size_t at = far.find("2026-12-06"); at != std::string::npos; at = far.find("2026-12-06"))
    far.replace(at, 4, "4052");
  Job later = Parse(far);
  ASSERT_EQ(later.inspector.size(), 1u);
  EXPECT_EQ(later.inspector[0].dump_ns, 0);
  Status s = Ok{};
  Job bad = Parse("nccl_collective_exec_time_microseconds{" + l + "} NaN\n", &s);
  EXPECT_FALSE(s);
  EXPECT_TRUE(bad.inspector_buckets.empty());
}

}  // namespace
}  // namespace commdx::ingest
