// What `commdx diagnose` reads (ingest::LoadInputs): traces streamed in parallel, everything else
// read whole, inputs in the order of the files, and diagnose's report showing the trace tables
// `commdx trace` shows.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "ingest/load_inputs.h"
#include "unit/run_commdx.h"
#include "unit/temp_folder.h"

namespace commdx::cli {
namespace {

namespace fs = std::filesystem;

const std::string kTraces = std::string(COMMDX_SOURCE_DIR) + "/tests/data/traces/";

// A folder of copies: names chosen so that traces and other files interleave when sorted.
using Folder = TempFolder;

TEST(LoadDiagnoseInputs, TracesAndLogsInFileOrderWithSkippedFilesNamed) {
  Folder f("commdx_load_inputs_order");
  f.Copy(kTraces + "skew_rank1.json", "a_trace_rank1.json");
  f.Copy(std::string(COMMDX_SOURCE_DIR) + "/examples/ddp_healthy/nccl.vm.653.log", "b_nccl.log");
  f.Copy(kTraces + "skew_rank0.json", "c_trace_rank0.json");
  f.Write("d_notes.txt", "nothing commdx reads\n");
  f.Copy(kTraces + "empty.json", "e_empty.json");
  auto job = ingest::LoadInputs({f.dir.string()});
  ASSERT_TRUE(job) << job.error().ToString();
  ASSERT_EQ(job->inputs.size(), 3u);
  EXPECT_EQ(job->inputs[0].path, f.Path("a_trace_rank1.json"));
  EXPECT_EQ(job->inputs[0].kinds, std::vector<InputKind>{InputKind::kKineto});
  EXPECT_EQ(job->inputs[1].path, f.Path("b_nccl.log"));
  EXPECT_EQ(job->inputs[1].kinds, std::vector<InputKind>{InputKind::kNcclLog});
  EXPECT_EQ(job->inputs[2].path, f.Path("c_trace_rank0.json"));
  EXPECT_EQ(job->inputs[0].bytes, fs::file_size(kTraces + "skew_rank1.json"));
  ASSERT_EQ(job->trace.ranks.size(), 2u);
  EXPECT_EQ(job->trace.ranks[0].rank, 0);  // ordered by rank, not by file
  EXPECT_FALSE(job->nccl.empty());
  ASSERT_EQ(job->skipped.size(), 2u);
  EXPECT_EQ(job->skipped[0].path, f.Path("d_notes.txt"));
  EXPECT_EQ(job->skipped[0].reason, "not a format commdx reads");
  EXPECT_EQ(job->skipped[1].reason, "empty file");
}

TEST(LoadDiagnoseInputs, CopiesOfOneTraceAreReadOnceEachNoted) {
  Folder f("commdx_load_inputs_dup");
  for (const char* name : {"x_rank0.json", "y_rank0.json", "z_rank0.json"})
    f.Copy(kTraces + "skew_rank0.json", name);
  auto job = ingest::LoadInputs({f.dir.string()});
  ASSERT_TRUE(job) << job.error().ToString();
  EXPECT_EQ(job->inputs.size(), 3u);
  EXPECT_EQ(job->trace.ranks.size(), 1u);
  // One trace in three files: two copies (the set is finished once, not after every file).
  EXPECT_EQ(job->quality.Count("kineto.same_trace_twice"), 2u);
  EXPECT_EQ(job->quality.Count("kineto.duplicate_rank"), 0u);
}

// STYLE rule 6: a broken trace among several inputs is an input-quality error with its place and
// the rest is read; alone (or with nothing else usable) it is the error.
TEST(LoadDiagnoseInputs, BrokenTraceAmongOthersIsNotedWithItsPlace) {
  Folder f("commdx_load_inputs_broken");
  // Cut inside its header (a trace cut after its first events is read up to the cut).
  std::ifstream in(kTraces + "truncated.json", std::ios::binary);
  f.Write("t.json", std::string(std::istreambuf_iterator<char>(in), {}).substr(0, 200));
  f.Copy(std::string(COMMDX_SOURCE_DIR) + "/examples/ddp_healthy/nccl.vm.653.log", "n.log");
  auto job = ingest::LoadInputs({f.dir.string()});
  ASSERT_TRUE(job) << job.error().ToString();
  ASSERT_EQ(job->inputs.size(), 1u);
  EXPECT_EQ(job->inputs[0].path, f.Path("n.log"));
  ASSERT_EQ(job->quality.Count("load.broken_input"), 1u);
  bool placed = false;
  for (const auto& e : job->quality.entries())
    if (e.id == "load.broken_input")
      placed = e.first.ToString().find(f.Path("t.json") + ":") == 0 && e.first.line > 0;
  EXPECT_TRUE(placed);
  auto alone = ingest::LoadInputs({f.Path("t.json")});
  ASSERT_FALSE(alone);
  EXPECT_NE(alone.error().ToString().find(f.Path("t.json") + ":"), std::string::npos)
      << alone.error().ToString();
  EXPECT_FALSE(ingest::LoadInputs({f.Path("missing.json")}));
}

std::string Commdx(const std::string& args) { return test_util::RunCommdx(args).out; }

TEST(DiagnoseCli, ShowsTheTraceTablesWhenTracesAreRead) {
  std::string with = Commdx("diagnose " + kTraces + "skew_rank0.json " + kTraces +
                            "skew_rank1.json --format json");
  for (const char* key : {"\"trace_ranks\"", "\"trace_step_breakdown\"", "\"trace_collectives\"",
                          "\"trace_bandwidth\"", "\"hta_compat\"", "\"inputs\""})
    EXPECT_NE(with.find(key), std::string::npos) << key;
  std::string text =
      Commdx("diagnose " + kTraces + "skew_rank0.json " + kTraces + "skew_rank1.json");
  EXPECT_NE(text.find("Where each step's GPU time goes"), std::string::npos)
      << text.substr(0, 3000);
  std::string without = Commdx("diagnose " + std::string(COMMDX_SOURCE_DIR) +
                               "/examples/ddp_healthy/nccl.vm.653.log" + " --format json");
  EXPECT_NE(without.find("\"communicators\""), std::string::npos);
  EXPECT_EQ(without.find("\"trace_step_breakdown\""), std::string::npos);
}

}  // namespace
}  // namespace commdx::cli
