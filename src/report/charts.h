// Chart data a report may carry for the HTML renderer (the text renderers ignore it):
// per-rank step timelines, a histogram, and x–y plots such as bandwidth against message size.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace commdx::report {

// One coloured interval on a lane. `kind` picks the colour: "compute", "comm", "comm_exposed",
// "idle", "host_wait", "data_wait", "other".
struct Segment {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  std::string kind;
  std::string label;  // tooltip
};

struct Lane {
  std::string name;  // "rank 0 compute"
  std::vector<Segment> segments;
};

struct Timeline {
  std::string title;
  std::vector<Lane> lanes;
};

struct Histogram {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<std::string> bin_labels;
  std::vector<double> values;
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
  std::vector<Series> series;
};

struct Charts {
  std::vector<Timeline> timelines;
  std::vector<Histogram> histograms;
  std::vector<XYChart> xy;
  bool empty() const { return timelines.empty() && histograms.empty() && xy.empty(); }
};

}  // namespace commdx::report
