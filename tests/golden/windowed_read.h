// What the windowed-read tests share (windowed_logs_test.cc, windowed_pipes_test.cc): a report
// read with a given limit and window size, compared with another line by line.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "pipeline/pipeline.h"
#include "report/render.h"

namespace commdx::windowed_test {

inline const std::string kData = std::string(COMMDX_SOURCE_DIR) + "/tests/data/";

struct Read {
  std::string json;     // the whole report, the windows' note taken out
  std::string verdict;  // the root cause and each finding's id, severity, title, fix, numbers
  uint64_t windowed_files = 0;
};

inline Read ReadAs(const std::vector<std::string>& paths, uint64_t max_text_bytes,
                   size_t window_bytes) {
  pipeline::Request r;
  r.command = "diagnose";
  r.paths = paths;
  r.load.max_text_bytes = max_text_bytes;
  r.load.window_bytes = window_bytes;
  r.parts = pipeline::EveryPart();
  auto out = pipeline::Run(std::move(r));
  EXPECT_TRUE(out) << out.error().ToString();
  Read read;
  if (!out) return read;
  read.windowed_files = out->report.quality.Count("load.in_windows");
  out->report.quality.Remove("load.in_windows");
  // The tail of an nccl-tests run's output without its table (case18): whole, a note that it did
  // not parse as nccl-tests; in windows, a note that nccl-tests is read only whole.
  out->report.quality.Remove("load.not_in_windows");
  out->report.quality.Remove(QualityFamily("load.partial_"), "nccl_tests");
  read.json = report::RenderJson(out->report);
  const auto& d = out->report.diagnosis;
  if (d.root_cause) read.verdict = "root " + d.root_cause->id + "\n";
  for (const Finding& f : d.findings) {
    read.verdict += f.id + " | " + SeverityName(f.severity) + " | " + f.title + " | " + f.fix;
    for (const auto& m : f.metrics) read.verdict += " | " + m.name + "=" + std::to_string(m.value);
    read.verdict += "\n";
  }
  return read;
}

// The first line where two texts differ, with the one before it, or "" when they are equal.
inline std::string FirstDifference(const std::string& a, const std::string& b) {
  std::istringstream ia(a), ib(b);
  std::string la, lb, before;
  while (true) {
    const bool ga = static_cast<bool>(std::getline(ia, la));
    const bool gb = static_cast<bool>(std::getline(ib, lb));
    if (!ga && !gb) return "";
    if (!ga || !gb || la != lb)
      return "after: " + before + "\nwhole:      " + la + "\nin windows: " + lb;
    before = la;
  }
}

// The longest line of the files: a window no shorter cuts no line.
inline size_t LongestLine(const std::vector<std::string>& paths) {
  size_t longest = 0;
  for (const auto& p : paths) {
    std::ifstream in(p);
    for (std::string line; std::getline(in, line);) longest = std::max(longest, line.size() + 1);
  }
  return longest;
}

}  // namespace commdx::windowed_test
