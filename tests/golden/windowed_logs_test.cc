// A log too large to hold whole is read in windows of whole lines (base/file_windows.h): the
// report on real NCCL logs and job logs read that way, in windows a few lines long (dozens of cuts,
// each between two lines), is the report on the same files read whole, but for the one note that
// says so. The NCCL log's reader keeps its state from one window to the next (communicators,
// pending connection lines, line numbers); the job log's reads each window as a text of its own,
// holding back to the next window a record a terminal may have wrapped across the edge.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "golden/windowed_read.h"

namespace commdx {
namespace {

using namespace windowed_test;  // NOLINT(build/namespaces)

// Whole, and in windows of three sizes from the longest line up (so the cuts fall in different
// places, dozens of them in each of these files). `exact`: the whole report is the same; else the
// verdict is (a job log's fact printed on several lines may be cited from another of them).
void ExpectSameReport(const std::vector<std::string>& paths, uint64_t files, bool exact) {
  const Read whole = ReadAs(paths, 0, 32u << 20);
  EXPECT_EQ(whole.windowed_files, 0u);
  // Something was read, not two empty reports: the NCCL setup or the job log's facts.
  EXPECT_GT(whole.json.size(), 1500u) << whole.json;
  const size_t longest = LongestLine(paths);
  for (size_t window : {longest, longest * 2 + 7, longest * 5 + 3}) {
    SCOPED_TRACE("windows of " + std::to_string(window) + " bytes");
    const Read windowed = ReadAs(paths, 1, window);
    EXPECT_EQ(windowed.windowed_files, files);
    EXPECT_EQ(FirstDifference(whole.verdict, windowed.verdict), "");
    if (exact) {
      EXPECT_EQ(FirstDifference(whole.json, windowed.json), "");
    }
  }
}

// Multi-host NCCL logs from public issues: setup, connections, plugins, warnings.
TEST(WindowedLogs, PublicNcclLogsGiveTheSameReport) {
  for (const char* f : {"nccl_logs_multihost/nccl1357-h100-ibext-sharp-2nodes.log",
                        "nccl_logs_multihost/nccl1634-hpcx-plugin-on-some-hosts.log",
                        "nccl_logs_multihost/nccl226-aws-socket-only-cluster.log",
                        "nccl_logs_multihost/nccltests244-two-hosts-internal-plugin-ib.log"}) {
    SCOPED_TRACE(f);
    ExpectSameReport({kData + f}, 1, true);
  }
}

// Every public NCCL log fixture (30 issues' logs, NCCL 2.2 to 2.28: errors, warnings, transports,
// rings and trees, spliced lines): the same report to the byte.
TEST(WindowedLogs, EveryNcclLogFixtureGivesTheSameReport) {
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(kData + "nccl_log_fixtures")) {
    if (e.path().extension() != ".log") continue;
    SCOPED_TRACE(e.path().filename().string());
    // An nccl-tests table alone (case36) is read only whole; a file over the limit that holds
    // nothing else is refused as before.
    const std::string whole = ReadAs({e.path().string()}, 0, 32u << 20).json;
    if (whole.find("\"kind\": \"nccl_log") == std::string::npos &&
        whole.find("+nccl_log\"") == std::string::npos)
      continue;
    ExpectSameReport({e.path().string()}, 1, true);
    ++files;
  }
  EXPECT_GE(files, 25u);
}

// A four-node hang captured here: four NCCL logs and the job's console (watchdog lines, process
// groups), read together.
TEST(WindowedLogs, HangCaptureGivesTheSameReport) {
  const std::string dir = kData + "hang/nodes4_mismatch_detail/";
  ExpectSameReport({dir + "job.log", dir + "nccl.vm.783.log", dir + "nccl.vm.784.log",
                    dir + "nccl.vm.785.log", dir + "nccl.vm.786.log"},
                   5, false);
}

// Public job logs: watchdog timeouts, heartbeat-monitor hangs, sequence skew, and lines a
// terminal wrapped (a record cut by a window's edge is held back and read with the next window).
TEST(WindowedLogs, PublicJobLogsGiveTheSameReport) {
  for (const char* f :
       {"hang/public/heartbeat_arctictraining219.log",
        "hang/public/heartbeat_msswift7992_pg_desc.log",
        "hang/public/watchdog_llamafactory2902_seq_skew.log",
        "hang/public/watchdog_llamafactory7396.log", "hang/public/rccl429_desync_excerpt.log",
        "hang/public/wrapped_openr1_620.log", "hang/public/wrapped_pytorch_pr122850.log",
        "hang/public/heartbeat_vlmr1_257_wrapped.log",
        "hang/public/dump_signal_torchtune2651_wrapped.log"}) {
    SCOPED_TRACE(f);
    ExpectSameReport({kData + f}, 1, false);
  }
}

// Where windows of `window` bytes end in `text`, as ReadWindows cuts them: after the last line
// end they hold.
std::vector<size_t> WindowEdges(const std::string& text, size_t window) {
  std::vector<size_t> edges;
  for (size_t at = 0; at < text.size();) {
    size_t take = std::min(window, text.size() - at);
    if (at + take < text.size()) {
      const size_t nl = text.substr(at, take).find_last_of('\n');
      if (nl != std::string::npos) take = nl + 1;
    }
    at += take;
    edges.push_back(at);
  }
  return edges;
}

// A watchdog timeout a terminal wrapped over three lines (open-r1 issue 620), with windows of
// every size from its longest line to four times that: in a third of them a window's edge falls
// inside the record. Each read gives the whole read's report (the timeout, its collective and
// its line), not a record cut in two ("cut_watchdog_line") nor the timeout missed.
TEST(WindowedLogs, WrappedWatchdogLineAcrossAWindowEdge) {
  const std::string path = kData + "hang/public/wrapped_openr1_620.log";
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t first = text.find("[PG ID 0 PG GUID 0(default_pg) Rank 1] Process group watchdog");
  const size_t last = text.find("ming out.\n", first);
  ASSERT_NE(last, std::string::npos);
  const Read whole = ReadAs({path}, 0, 32u << 20);
  EXPECT_NE(whole.json.find("OpType=BROADCAST"), std::string::npos) << whole.json;
  EXPECT_EQ(whole.json.find("cut_watchdog_line"), std::string::npos);
  const size_t longest = LongestLine({path});
  size_t inside = 0;
  for (size_t window = longest; window < 4 * longest; window += 5) {
    const std::vector<size_t> edges = WindowEdges(text, window);
    if (std::none_of(edges.begin(), edges.end(),
                     [&](size_t e) { return e > first && e <= last; }))
      continue;
    ++inside;
    SCOPED_TRACE("windows of " + std::to_string(window) + " bytes");
    const Read windowed = ReadAs({path}, 1, window);
    EXPECT_EQ(windowed.windowed_files, 1u);
    EXPECT_EQ(FirstDifference(whole.json, windowed.json), "");
  }
  EXPECT_GE(inside, 20u);
}

}  // namespace
}  // namespace commdx
