// Chart data a report may carry for the HTML renderer (the text renderers ignore it):
// per-rank step timelines, a histogram, and x–y plots such as bandwidth against message size.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace commdx::report {

// One coloured interval on a lane. `kind` picks the colour: "compute", "comm", "comm_exposed",
// "idle", "host_wait", "data_wait", "other" (copies and sets).
struct Segment {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  std::string kind;
  std::string label;  // tooltip
  // Share of [start, end) the work covers (a merged segment of many short kernels is less than
  // 1): drawn as the fill's opacity so that sparse work does not look solid.
  double busy_fraction = 1;
};

struct Lane {
  std::string name;  // "rank 0 compute"
  std::vector<Segment> segments;
  std::string group;  // lanes of one group ("rank 0") are drawn together, groups apart
};

struct Timeline {
  std::string title;
  std::vector<Lane> lanes;
  std::string note;  // a line under the chart: what is shown and how it was chosen
};

struct Histogram {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<std::string> bin_labels;
  std::vector<double> values;
  std::string note;
};

struct Series {
  std::string name;
  std::vector<double> x;
  std::vector<double> y;
  bool dashed = false;  // e.g. the expected line
};

struct XYChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  bool log_x = false;
  bool x_bytes = false;  // x ticks read as sizes ("4K", "16M")
  std::vector<Series> series;
  std::string note;
};

struct Charts {
  std::vector<Timeline> timelines;
  std::vector<Histogram> histograms;
  std::vector<XYChart> xy;
  bool empty() const { return timelines.empty() && histograms.empty() && xy.empty(); }
  void Append(Charts other) {
    for (auto& t : other.timelines) timelines.push_back(std::move(t));
    for (auto& h : other.histograms) histograms.push_back(std::move(h));
    for (auto& x : other.xy) xy.push_back(std::move(x));
  }
};

}  // namespace commdx::report
