// NCCL Inspector Prometheus files read twice (issue 42), on the real captures of
// tests/data/inspector_prom/h100_2ranks/ (README there): a .prom copied beside itself, gzipped
// beside itself, or named twice is read once (load.same_file_twice names the copy), and a node
// exporter page holding the same lines as a .prom beside it (another file, overlapping samples)
// adds nothing: each NCCL 2.30 bucket and each 2.29 record counts once, with a note naming where
// it was read first. Two ranks on one GPU write buckets with the same labels and other numbers:
// those are not copies.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "analysis/registry.h"
#include "ingest/load_inputs.h"
#include "unit/gzip_text.h"
#include "unit/temp_folder.h"

namespace commdx {
namespace {

const std::string kCases =
    std::string(COMMDX_SOURCE_DIR) + "/tests/data/inspector_prom/h100_2ranks/";
const std::string kProm = "nccl_inspector_metrics_760b7366-80be-91f1-f202-107b563704ea.prom";

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A temporary folder holding a case folder's files (both ranks' .prom, the NCCL logs) as the
// capture left them, and the copies a test adds.
struct Folder : TempFolder {
  using TempFolder::TempFolder;
  void CopyCase(const std::string& name) const {
    std::filesystem::copy(kCases + name, dir, std::filesystem::copy_options::recursive);
  }
};

Job Load(const std::vector<std::string>& paths) {
  auto job = ingest::LoadInputs(paths);
  EXPECT_TRUE(job) << (job ? "" : job.error().ToString());
  return job ? std::move(*job) : Job{};
}

// The communicator summaries' text: equal when the same samples were read.
std::string Summaries(const Job& job) {
  std::string out;
  for (const Finding& f : analysis::RunAnalyzers(job, {}, {Source::kLogs}))
    if (f.id == "inspector.comm_summary") out += f.title + "\n" + f.detail + "\n";
  return out;
}

const DiagEntry* Entry(const Job& job, const std::string& id) {
  for (const DiagEntry& d : job.quality.entries())
    if (d.id == id) return &d;
  return nullptr;
}

// NCCL 2.30: 3 buckets per rank (6 lines: a busbw and a mean time sample per key).
TEST(InspectorPromCopies, CopiedAndGzippedBesideItselfReadOnce) {
  const Job base = Load({kCases + "p230_healthy"});
  ASSERT_EQ(base.inspector_buckets.size(), 6u);
  EXPECT_EQ(base.quality.Count("inspector.duplicate_record"), 0u);

  Folder f("commdx_inspector_prom_copies");
  f.CopyCase("p230_healthy");
  const std::string rank0 = ReadAll(kCases + "p230_healthy/rank0/" + kProm);
  f.Write("zz_copy/rank0/" + kProm, rank0);              // the job folder copied again (read after)
  f.Write("rank0_" + kProm + ".gz", GzipString(rank0));  // gzip -k beside it
  const Job job = Load({f.dir.string()});
  EXPECT_EQ(job.inspector_buckets.size(), 6u);
  EXPECT_EQ(job.quality.Count("load.same_file_twice"), 2u);
  EXPECT_EQ(job.quality.Count("inspector.duplicate_record"), 0u);  // skipped whole
  int copies = 0;
  for (const SkippedInput& s : job.skipped)
    if (s.reason.find("the same text as " + f.Path("rank0/" + kProm)) != std::string::npos)
      ++copies;
  EXPECT_EQ(copies, 2);
  EXPECT_EQ(Summaries(job), Summaries(base));
}

TEST(InspectorPromCopies, NamedTwiceReadOnce) {
  const std::string file = kCases + "p230_healthy/rank1/" + kProm;
  const Job job = Load({file, file});
  EXPECT_EQ(job.inputs.size(), 1u);
  EXPECT_EQ(job.inspector_buckets.size(), 3u);
}

// A node exporter's /metrics page holds the textfile collector's lines among its own: given with
// the .prom it was scraped from, the same buckets are read once.
TEST(InspectorPromCopies, NodeExporterPageBesideTheFileAddsNothing) {
  const Job base = Load({kCases + "p230_healthy"});
  Folder f("commdx_inspector_prom_page");
  f.CopyCase("p230_healthy");
  const std::string rank0 = ReadAll(kCases + "p230_healthy/rank0/" + kProm);
  f.Write("metrics.txt",
          "# HELP node_load1 1m load average.\n# TYPE node_load1 gauge\nnode_load1 0.42\n" + rank0 +
              "node_memory_MemFree_bytes 1.2e+10\n");
  const Job job = Load({f.dir.string()});
  ASSERT_EQ(job.inputs.size(), 5u);  // the page is read: it is no copy of one file
  EXPECT_EQ(job.inspector_buckets.size(), 6u);
  EXPECT_EQ(job.quality.Count("inspector.duplicate_record"), 3u);
  const DiagEntry* d = Entry(job, "inspector.duplicate_record");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, DiagSeverity::kNote);
  // Files are read in name order: metrics.txt before rank0/, so the .prom's lines are the copies.
  EXPECT_EQ(d->first.file, f.Path("rank0/" + kProm));
  EXPECT_NE(d->message.find("the same samples as " + f.Path("metrics.txt") + ":4"),
            std::string::npos)
      << d->message;
  EXPECT_EQ(Summaries(job), Summaries(base));
}

// Both ranks sit on GPU0 of "vm" and print the same labels; their numbers differ (AllReduce
// 32-33MB: 21455 us on rank 0, README), so each rank's buckets count.
TEST(InspectorPromCopies, TwoRanksOnOneGpuAreNoCopies) {
  const Job job = Load({kCases + "p230_healthy"});
  ASSERT_EQ(job.inspector_buckets.size(), 6u);
  int gpu0 = 0;
  for (const InspectorBucket& b : job.inspector_buckets) gpu0 += b.node == "vm" && b.gpu == "GPU0";
  EXPECT_EQ(gpu0, 6);
  EXPECT_EQ(job.quality.Count("inspector.duplicate_record"), 0u);
}

// NCCL 2.29: one record per rank (coll_sn 899 and 900); the page repeats rank 0's.
TEST(InspectorPromCopies, Nccl229PageBesideTheFileReadOnce) {
  Folder f("commdx_inspector_prom_page229");
  f.CopyCase("p229_healthy");
  f.Write("metrics.txt", "node_load1 0.42\n" + ReadAll(kCases + "p229_healthy/rank0/" + kProm));
  const Job job = Load({f.dir.string()});
  ASSERT_EQ(job.inspector.size(), 2u);
  EXPECT_EQ(job.quality.Count("inspector.duplicate_record"), 1u);
  const DiagEntry* d = Entry(job, "inspector.duplicate_record");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->first.file, f.Path("rank0/" + kProm));
  EXPECT_NE(d->message.find("AllReduce #899 read before (" + f.Path("metrics.txt") + ":2)"),
            std::string::npos)
      << d->message;
}

}  // namespace
}  // namespace commdx
