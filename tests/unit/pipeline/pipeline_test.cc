// The pipeline from a request to a report: the one "nothing was read" error, the parts shown only
// when their source is present, and the table data computed once and shown as analysis gave it.
#include "pipeline/pipeline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "analysis/bench_summary.h"
#include "analysis/trace_pattern.h"
#include "base/str_format.h"
#include "pipeline/nothing_read.h"

namespace commdx::pipeline {
namespace {

namespace fs = std::filesystem;

const std::string kReference = std::string(COMMDX_SOURCE_DIR) + "/tests/data/h200x2_reference/";

// A fresh folder holding `files` (name -> content).
std::string Folder(const std::string& name, const std::map<std::string, std::string>& files) {
  fs::path dir = fs::path(::testing::TempDir()) / ("commdx_pipeline_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const auto& [file, text] : files) std::ofstream(dir / file) << text;
  return dir.string();
}

const report::Table* FindTable(const report::Report& r, const std::string& key) {
  for (const auto& t : r.tables)
    if (t.key == key) return &t;
  return nullptr;
}

Request LogsRequest(std::vector<std::string> paths) {
  Request r;
  r.command = "logs";
  r.paths = std::move(paths);
  r.load.only = {InputKind::kNcclLog};
  r.needs = Needs::kNcclLines;
  r.diagnose = diagnose::DiagnoseOptions::Only({Source::kLogs});
  r.parts = {Part::kNccl};
  return r;
}

Request TraceRequest(std::vector<std::string> paths) {
  Request r;
  r.command = "trace";
  r.paths = std::move(paths);
  r.needs = Needs::kTrace;
  r.diagnose = diagnose::DiagnoseOptions::Only({Source::kTrace});
  r.parts = {Part::kTrace};
  return r;
}

TEST(NothingRead, OneFileIsNamedWithWhyItWasNotRead) {
  std::string dir = Folder("one", {{"junk.bin", std::string(64, '\x01')}});
  auto out = pipeline::Run(LogsRequest({dir + "/junk.bin"}));
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ErrorCode::kBadInput);
  EXPECT_EQ(out.error().message, "binary data, not a text log");
  EXPECT_EQ(out.error().where.file, dir + "/junk.bin");
}

TEST(NothingRead, SeveralFilesAreCountedAndTheFirstFewNamed) {
  std::map<std::string, std::string> files;
  for (int i = 0; i < 7; ++i) files[StrFormat("f%d.txt", i)] = "hello\n";
  std::string dir = Folder("many", files);
  auto out = pipeline::Run(LogsRequest({dir}));
  ASSERT_FALSE(out);
  const std::string& m = out.error().message;
  EXPECT_EQ(m.rfind("none of the 7 files given holds an NCCL log line\n", 0), 0u) << m;
  EXPECT_NE(m.find("f0.txt: no NCCL log line in it"), std::string::npos) << m;
  EXPECT_EQ(m.find("f5.txt"), std::string::npos) << m;  // five named
  EXPECT_NE(m.find("(and 2 more)"), std::string::npos) << m;
  EXPECT_EQ(out.error().where.file, dir);  // one folder given: it is the place
}

TEST(NothingRead, EveryCommandSaysWhatItExpected) {
  std::string dir = Folder("kinds", {{"empty.json", ""}});
  const std::string file = dir + "/empty.json";
  Job nothing;
  nothing.skipped.push_back({file, "empty file"});
  auto any = CheckSomethingRead(Needs::kAnyInput, {file}, nothing);
  ASSERT_FALSE(any);
  EXPECT_EQ(any.error().message,
            "empty file; expected a profiler trace, NCCL log, nccl-tests output, nvidia-smi text "
            "or commdx snapshot (commdx diagnose --list)");
  // A file read whole that held none of what the command needs is named too.
  Job snapshot_without_env;
  snapshot_without_env.inputs.push_back({file, {InputKind::kSnapshot}, 10});
  auto env = CheckSomethingRead(Needs::kEnvironment, {file}, snapshot_without_env);
  ASSERT_FALSE(env);
  EXPECT_EQ(env.error().message,
            "no environment section in it; expected a snapshot from `commdx env --save`");
  EXPECT_TRUE(CheckSomethingRead(Needs::kTopology, {file}, Job{})
                  .error()
                  .message.find("nothing was read that holds a topology") == 0);
}

TEST(Pipeline, DiagnoseShowsEachPresentSourceWithTheSummaryAnalysisGave) {
  Request r;
  r.command = "diagnose";
  r.paths = {kReference + "nccl-tests-allreduce-base.txt",
             kReference + "nccl-debug-allreduce-base.log"};
  r.parts = EveryPart();
  r.charts = true;
  auto out = pipeline::Run(std::move(r));
  ASSERT_TRUE(out) << out.error().ToString();
  const report::Report& rep = out->report;
  EXPECT_EQ(rep.command, "diagnose");
  ASSERT_TRUE(FindTable(rep, "inputs"));
  EXPECT_EQ(FindTable(rep, "inputs")->rows.size(), 2u);
  EXPECT_FALSE(FindTable(rep, "trace_ranks"));  // no trace read: no trace tables
  const report::Table* summary = FindTable(rep, "bench_all_reduce_summary");
  ASSERT_TRUE(summary);
  ASSERT_EQ(out->job.bench.size(), 1u);
  analysis::BenchSummary s = analysis::SummarizeBench(out->job.bench[0]);
  ASSERT_TRUE(s.has_data);
  ASSERT_TRUE(summary->rows[0][0].number);
  EXPECT_DOUBLE_EQ(*summary->rows[0][0].number, s.plateau_busbw_gbps);
  EXPECT_FALSE(rep.charts.xy.empty());  // the sweep against the line rate
}

// A sweep of 1 GiB and up whose fit is rejected (nccl-tests#322): no alpha (no latency-bound
// size), no beta (above the measured peak), and the note says why for each.
TEST(Pipeline, BenchSummaryLeavesOutAFitThatDoesNotDescribeTheSweep) {
  Request r;
  r.command = "diagnose";
  r.paths = {std::string(COMMDX_SOURCE_DIR) +
             "/tests/data/nccl_tests_public/nccltests322-failure-after-largest-size.txt"};
  r.parts = EveryPart();
  auto out = pipeline::Run(std::move(r));
  ASSERT_TRUE(out) << out.error().ToString();
  const report::Table* t = FindTable(out->report, "bench_unknown_summary");
  ASSERT_TRUE(t);
  ASSERT_EQ(t->rows.size(), 1u);
  int fit_cells = 0;
  for (size_t i = 0; i < t->column_keys.size(); ++i)
    if (t->column_keys[i] == "alpha_us" || t->column_keys[i] == "beta_busbw_gbps") {
      ++fit_cells;
      EXPECT_EQ(t->rows[0][i].text, "-") << t->column_keys[i];
      EXPECT_FALSE(t->rows[0][i].number) << t->column_keys[i];
    }
  EXPECT_EQ(fit_cells, 2);
  EXPECT_NE(t->note.find("latency floor and alpha: no size of 64 KiB or less"), std::string::npos)
      << t->note;
  EXPECT_NE(t->note.find("alpha-beta fit not shown: beta 498.6 GB/s is above the measured peak "
                         "of 367.3 GB/s"),
            std::string::npos)
      << t->note;
}

TEST(Pipeline, ALiveTopologyIsShownEvenWhenTheProbeFoundLittle) {
  for (bool live : {false, true}) {
    Request r;
    r.command = "topo";
    r.job.emplace();
    r.live = live;
    r.diagnose = diagnose::DiagnoseOptions::Only({Source::kTopo});
    r.parts = {Part::kTopology};
    r.not_checked = {{"PCIe ACS", "run as root"}};
    auto out = pipeline::Run(std::move(r));
    ASSERT_TRUE(out);
    EXPECT_EQ(FindTable(out->report, "machine") != nullptr, live);
    ASSERT_FALSE(out->report.diagnosis.not_checked.empty());
    EXPECT_EQ(out->report.diagnosis.not_checked.back().what, "PCIe ACS");
  }
}

TEST(Pipeline, NcclWarningsTableCutsLongMessagesBetweenWords) {
  const std::string log = std::string(COMMDX_SOURCE_DIR) +
                          "/tests/data/nccl_log_fixtures/"
                          "case47-nccl2.4.8-mismatched-collective-around-rank39.log";
  auto out = pipeline::Run(LogsRequest({log}));
  ASSERT_TRUE(out) << out.error().ToString();
  const report::Table* t = FindTable(out->report, "warnings");
  ASSERT_TRUE(t);
  ASSERT_EQ(t->rows.size(), 1u);
  // 171 characters: the old fixed cut at 160 ended in "to see the coll".
  EXPECT_EQ(t->rows[0].back().text,
            "Mismatched collective detected, please check your collective calls at and around "
            "rank 39. You can use NCCL_DEBUG=INFO and NCCL_DEBUG_SUBSYS=COLL to see the...");
}

TEST(Pipeline, TracePatternTableIsThePatternTheAnalyzerSaw) {
  const std::string dir = std::string(COMMDX_SOURCE_DIR) + "/examples/ddp_healthy/";
  if (!fs::exists(dir + "trace_rank0.json.gz")) GTEST_SKIP() << "no capture";
  auto out =
      pipeline::Run(TraceRequest({dir + "trace_rank0.json.gz", dir + "trace_rank1.json.gz"}));
  ASSERT_TRUE(out) << out.error().ToString();
  const report::Table* t = FindTable(out->report, "trace_collectives");
  ASSERT_TRUE(t);
  auto rows = analysis::CommPattern(out->job.trace);
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(t->rows.size(), rows.size());
  EXPECT_EQ(t->note, "pattern: " + analysis::PatternName(rows));
  bool finding = false;
  for (const auto& f : out->report.diagnosis.findings)
    finding |= f.id == "trace.pattern" &&
               f.title == "Communication pattern: " + analysis::PatternName(rows);
  EXPECT_TRUE(finding);
}

// A collective the trace ties to no process group and gives no size for (display_ns_rank1.json
// has one): the table says "-" for what it does not know, never "0 B" or "?".
TEST(Pipeline, TracePatternTableShowsUnknownGroupAndSizeAsDash) {
  auto out = pipeline::Run(
      TraceRequest({std::string(COMMDX_SOURCE_DIR) + "/tests/data/traces/display_ns_rank1.json"}));
  ASSERT_TRUE(out) << out.error().ToString();
  const report::Table* t = FindTable(out->report, "trace_collectives");
  ASSERT_TRUE(t);
  ASSERT_EQ(t->rows.size(), 1u);
  const auto& row = t->rows[0];
  const auto& keys = t->column_keys;
  auto cell = [&](const std::string& key) {
    size_t i = std::find(keys.begin(), keys.end(), key) - keys.begin();
    return i < row.size() ? row[i].text : "(no column " + key + ")";
  };
  EXPECT_EQ(cell("pg"), "-");
  EXPECT_EQ(cell("ranks"), "-");
  EXPECT_EQ(cell("median_bytes"), "-");
  EXPECT_EQ(cell("total_bytes"), "-");
  EXPECT_EQ(cell("n_size_unknown"), "1");
  bool finding = false;
  for (const auto& f : out->report.diagnosis.findings)
    if (f.id == "trace.pattern") {
      finding = true;
      EXPECT_EQ(f.detail.rfind("unknown: 1.0 per step, size unknown. Link:", 0), 0u) << f.detail;
    }
  EXPECT_TRUE(finding);
}

}  // namespace
}  // namespace commdx::pipeline
