// `commdx summarize` then `commdx diagnose` over the summary gives the report `commdx diagnose`
// gives over the raw files (issue 40): the real binary on bundled real runs, the JSON reports
// compared field by field. Only the inputs differ, by design: the summary's row stands for the
// files it was made from (kind "summary+<their kinds>", `summarised_from` naming them).
// Environment dumps are not carried by a summary (docs/summary-format.md): they are passed raw
// beside it, which also covers summaries mixed with raw inputs.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace commdx {
namespace {

namespace fs = std::filesystem;

const std::string kSource = COMMDX_SOURCE_DIR;

// Runs `commdx ARGS` from the source folder (so input paths are as a user types them).
int Commdx(const std::string& args) {
  std::string cmd = "cd '" + kSource + "' && '" + COMMDX_BINARY + "' " + args + " >/dev/null";
  return WEXITSTATUS(std::system(cmd.c_str()));
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Each top-level member and each member of "data" but the inputs, minified.
std::vector<std::string> Comparable(simdjson::dom::element report) {
  std::vector<std::string> out;
  for (auto [key, value] : report.get_object()) {
    if (key == "inputs") continue;
    if (key != "data") {
      out.push_back(std::string(key) + "=" + simdjson::minify(value));
      continue;
    }
    for (auto [table, rows] : value.get_object())
      if (table != "inputs")
        out.push_back("data." + std::string(table) + "=" + simdjson::minify(rows));
  }
  return out;
}

struct Case {
  std::string folder;                   // relative to the source folder
  std::vector<std::string> raw_too;     // files a summary does not carry, passed beside it
  std::vector<std::string> summarised;  // what the summary's row must name
};

void ExpectSameReport(const Case& c) {
  const fs::path tmp =
      fs::path(testing::TempDir()) / ("summary_" + fs::path(c.folder).filename().string());
  fs::remove_all(tmp);
  const std::string raw_json = (tmp / "raw.json").string(), sum_json = (tmp / "sum.json").string();
  fs::create_directories(tmp);
  const int raw_rc = Commdx("diagnose " + c.folder + " --format json -o " + raw_json);
  ASSERT_LE(raw_rc, 1);
  ASSERT_EQ(Commdx("summarize " + c.folder + " -o " + (tmp / "s").string() + " --name node"), 0);
  const std::string summary = (tmp / "s" / "node.commdx-summary.json.gz").string();
  ASSERT_TRUE(fs::exists(summary));
  std::string args = "diagnose " + summary;
  for (const auto& f : c.raw_too) args += " " + c.folder + "/" + f;
  EXPECT_EQ(Commdx(args + " --format json -o " + sum_json), raw_rc);

  simdjson::dom::parser p1, p2;
  simdjson::dom::element raw = p1.parse(simdjson::padded_string(Slurp(raw_json)));
  simdjson::dom::element sum = p2.parse(simdjson::padded_string(Slurp(sum_json)));
  std::vector<std::string> a = Comparable(raw), b = Comparable(sum);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i], b[i]) << c.folder;

  // The summary's row: its kinds, and the files it stands for, as the raw report read them.
  simdjson::dom::array inputs = sum["inputs"].get_array();
  simdjson::dom::element row = *inputs.begin();
  EXPECT_EQ(std::string_view(row["path"]), summary);
  std::vector<std::string> from;
  for (auto f : row["summarised_from"].get_array()) from.emplace_back(std::string_view(f));
  std::vector<std::string> want;
  for (const auto& f : c.summarised) want.push_back(c.folder + "/" + f);
  EXPECT_EQ(from, want);
  EXPECT_EQ(std::string_view(row["kind"]).substr(0, 8), "summary+");
  // Far smaller than the traces it holds (docs/summary-format.md, "Size"): under 1% of their
  // JSON (0.3-0.4% on these runs; the NCCL logs' text included).
  uint64_t trace_bytes = 0;
  for (auto in : raw["inputs"].get_array())
    if (std::string_view(in["kind"]) == "kineto") trace_bytes += uint64_t(in["bytes"]);
  if (trace_bytes > 0) {
    EXPECT_LT(fs::file_size(summary) * 100, trace_bytes);
  }
}

TEST(Summary, TracesAndNcclLogsGiveTheRawReport) {
  ExpectSameReport(
      {"examples/ddp_straggler",
       {"env_rank0.json", "env_rank1.json"},
       {"nccl.vm.1541.log", "nccl.vm.1542.log", "trace_rank0.json.gz", "trace_rank1.json.gz"}});
}

// Nsight Systems exports (the trace model built from SQLite tables, digested like a Kineto
// trace's), and a rank traced over two profiling windows (the earlier one read, not analysed).
TEST(Summary, NsysExportsAndProfilingWindowsGiveTheRawReport) {
  ExpectSameReport(
      {"examples/nsys_nodes2_straggler_per_rank",
       {"env_rank0.json", "env_rank1.json"},
       {"nccl.vm.892.log", "nccl.vm.895.log", "report_rank0.sqlite.gz", "report_rank1.sqlite.gz"}});
  ExpectSameReport({"examples/styles_slow_loader_windows",
                    {},
                    {"vm_443.1796205264266098844.pt.trace.json.gz",
                     "vm_443.1796205265253889576.pt.trace.json.gz"}});
}

TEST(Summary, FlightRecorderPickleAndJobLogGiveTheRawReport) {
  ExpectSameReport(
      {"tests/data/hang/h200_timeout", {}, {"fr_dump_rank0", "job.log", "nccl.vm.2421.log"}});
}

}  // namespace
}  // namespace commdx
