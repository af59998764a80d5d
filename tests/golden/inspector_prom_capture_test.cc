// Real NCCL Inspector Prometheus output (tests/data/inspector_prom/, README there: the example
// NVIDIA's blog post prints, NCCL 2.30's aggregated form): recognised by content, each label set
// read into one bucket with its numbers, and the communicator summary built from them.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "analysis/registry.h"
#include "ingest/load_inputs.h"

namespace commdx {
namespace {

const std::string kFile =
    std::string(COMMDX_SOURCE_DIR) + "/tests/data/inspector_prom/nvidia_blog_nvl72_v5.1.prom";

TEST(InspectorPromCapture, BlogOutputReadAsThreeBuckets) {
  auto job = ingest::LoadInputs({kFile});
  ASSERT_TRUE(job) << job.error().ToString();
  ASSERT_EQ(job->inputs.size(), 1u);
  EXPECT_EQ(InputKindsName(job->inputs[0].kinds), "inspector_prom");
  EXPECT_TRUE(job->quality.empty());
  const auto& b = job->inspector_buckets;
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0].op, "Send");
  EXPECT_TRUE(b[0].p2p);
  EXPECT_EQ(b[0].n_ranks, 64);
  EXPECT_EQ(b[0].nnodes, 1);
  EXPECT_EQ(b[0].size_lo, 1u << 20);
  EXPECT_EQ(b[0].size_hi, 2u << 20);
  EXPECT_DOUBLE_EQ(b[0].busbw_gbps, 19.1634);
  EXPECT_DOUBLE_EQ(b[0].exec_us, 92.8984);
  EXPECT_EQ(b[0].where.line, 1u);
  EXPECT_EQ(b[1].op, "Recv");
  EXPECT_EQ(b[2].op, "ReduceScatter");
  EXPECT_FALSE(b[2].p2p);
  EXPECT_EQ(b[2].algo_proto, "RING_SIMPLE");
  EXPECT_EQ(b[2].size_lo, 134ull << 20);
  EXPECT_EQ(b[2].version, "v5.1");
  EXPECT_EQ(b[2].node, "nvl72033-T01");
  EXPECT_EQ(b[2].gpu, "GPU0");
  EXPECT_EQ(b[2].where.line, 6u);
  EXPECT_TRUE(job->inspector.empty());  // no per-collective records in this form
}

TEST(InspectorPromCapture, OneSummaryPerCommunicatorNoSlowFindingWithoutTopology) {
  auto job = ingest::LoadInputs({kFile});
  ASSERT_TRUE(job);
  std::vector<Finding> f = analysis::RunAnalyzers(*job, {}, {Source::kLogs});
  std::vector<const Finding*> summaries;
  for (const Finding& x : f) {
    EXPECT_NE(x.id, "inspector.slow_collective_bw");  // no topology: no expectation
    if (x.id == "inspector.comm_summary") summaries.push_back(&x);
  }
  ASSERT_EQ(summaries.size(), 2u);
  // The 32-rank, four-node communicator of the ReduceScatter, and the 64-rank one of the p2p.
  std::string all = summaries[0]->title + " | " + summaries[1]->title;
  EXPECT_NE(all.find("32 ranks on 4 node(s)"), std::string::npos) << all;
  EXPECT_NE(all.find("64 ranks on 1 node(s)"), std::string::npos) << all;
  for (const Finding* s : summaries) {
    EXPECT_NE(s->detail.find("v5.1"), std::string::npos);
    if (s->title.find("32 ranks") != std::string::npos) {
      EXPECT_NE(s->detail.find("ReduceScatter 134-135MB RING_SIMPLE x1: 44.12 GB/s, "
                               "104164 us"),
                std::string::npos)
          << s->detail;
    }
  }
}

// Buckets beside the real 2xH200 topology (tests/data/smi): an AllReduce of 64-65 MiB on one node
// at 5 GB/s at best is slow against NVLink; the same numbers on a four-node communicator are not
// held to NVLink (the job's expectation is for one node's links).
TEST(InspectorPromCapture, SlowOnlyAgainstTheLinkOfItsKind) {
  const std::string smi = std::string(COMMDX_SOURCE_DIR) + "/tests/data/smi/";
  for (int nodes : {1, 4}) {
    std::string l = "version=\"v5.1\",slurm_job_id=\"unknown\",node=\"vm\",gpu=\"GPU0\","
                    "comm_name=\"unknown\",n_nodes=\"" +
                    std::to_string(nodes) +
                    "\",nranks=\"8\",collective=\"AllReduce\",message_size=\"64-65MB\","
                    "algo_proto=\"RING_SIMPLE\"";
    std::string text;
    for (const char* gpu : {"GPU0", "GPU1"}) {
      std::string g = l;
      g.replace(g.find("GPU0"), 4, gpu);
      text += "nccl_bus_bandwidth_gbs{" + g + "} " + (gpu[3] == '0' ? "5" : "3.5") + "\n" +
              "nccl_collective_exec_time_microseconds{" + g + "} 20000\n";
    }
    const std::string path = ::testing::TempDir() + "/buckets_" + std::to_string(nodes) + ".prom";
    FILE* f = fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    fputs(text.c_str(), f);
    fclose(f);
    auto job = ingest::LoadInputs({path, smi + "h200x2-topo-m.txt", smi + "h200x2-nvlink-s.txt"});
    ASSERT_TRUE(job) << job.error().ToString();
    std::vector<Finding> out = analysis::RunAnalyzers(*job, {}, {Source::kLogs});
    const Finding* slow = nullptr;
    for (const Finding& x : out)
      if (x.id == "inspector.slow_collective_bw") slow = &x;
    if (nodes == 4) {
      EXPECT_EQ(slow, nullptr) << slow->title;
      continue;
    }
    ASSERT_NE(slow, nullptr);
    EXPECT_NE(slow->title.find("at most 5.0 GB/s"), std::string::npos) << slow->title;
    EXPECT_NE(slow->detail.find("highest of 2 buckets"), std::string::npos) << slow->detail;
  }
}

}  // namespace
}  // namespace commdx
