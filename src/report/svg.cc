#include "report/svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "base/text.h"

namespace commdx::report {

namespace {

constexpr int kWidth = 900;

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

const char* KindColor(std::string_view kind) {
  if (kind == "compute") return "#4c78a8";
  if (kind == "comm") return "#72b7b2";
  if (kind == "comm_exposed") return "#e45756";
  if (kind == "idle" || kind == "host_wait") return "#bab0ac";
  if (kind == "data_wait") return "#f58518";
  return "#9d755d";
}

std::string Text(double x, double y, std::string_view s, std::string_view anchor = "start") {
  return "<text x=\"" + Num(x) + "\" y=\"" + Num(y) + "\" text-anchor=\"" + std::string(anchor) +
         "\">" + HtmlEscape(s) + "</text>";
}

}  // namespace

std::string HtmlEscape(std::string_view raw) {
  std::string s = SanitizeUtf8(raw), out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string SvgTimeline(const Timeline& t) {
  int64_t t0 = INT64_MAX, t1 = INT64_MIN;
  for (const auto& lane : t.lanes)
    for (const auto& s : lane.segments) {
      t0 = std::min(t0, s.start_ns);
      t1 = std::max(t1, s.end_ns);
    }
  if (t0 >= t1) return "";
  const int label_w = 150, lane_h = 16, gap = 4;
  const double plot_w = kWidth - label_w - 10;
  int height = static_cast<int>(t.lanes.size()) * (lane_h + gap) + 30;
  std::string out = "<svg class=\"timeline\" width=\"" + std::to_string(kWidth) + "\" height=\"" +
                    std::to_string(height) + "\" role=\"img\" aria-label=\"" + HtmlEscape(t.title) + "\">";
  double scale = plot_w / static_cast<double>(t1 - t0);
  for (size_t i = 0; i < t.lanes.size(); ++i) {
    const auto& lane = t.lanes[i];
    double y = static_cast<double>(i) * (lane_h + gap) + 4;
    out += Text(0, y + lane_h - 4, lane.name);
    for (const auto& s : lane.segments) {
      double x = label_w + static_cast<double>(s.start_ns - t0) * scale;
      double w = std::max(0.5, static_cast<double>(s.end_ns - s.start_ns) * scale);
      out += "<rect class=\"seg seg-" + HtmlEscape(s.kind) + "\" x=\"" + Num(x) + "\" y=\"" + Num(y) +
             "\" width=\"" + Num(w) + "\" height=\"" + std::to_string(lane_h) + "\" fill=\"" +
             KindColor(s.kind) + "\"><title>" + HtmlEscape(s.label) + "</title></rect>";
    }
  }
  double axis_y = height - 8;
  out += Text(label_w, axis_y, "0");
  out += Text(kWidth - 10, axis_y, FormatDurationNs(static_cast<double>(t1 - t0)), "end");
  out += "</svg>";
  return out;
}

std::string SvgHistogram(const Histogram& h) {
  if (h.values.empty()) return "";
  const int height = 220, left = 50, bottom = 40;
  double vmax = *std::max_element(h.values.begin(), h.values.end());
  if (vmax <= 0) vmax = 1;
  double bar_w = (kWidth - left - 10.0) / static_cast<double>(h.values.size());
  std::string out = "<svg class=\"histogram\" width=\"" + std::to_string(kWidth) + "\" height=\"" +
                    std::to_string(height) + "\" role=\"img\" aria-label=\"" + HtmlEscape(h.title) + "\">";
  for (size_t i = 0; i < h.values.size(); ++i) {
    double bh = (height - bottom - 10.0) * h.values[i] / vmax;
    double x = left + static_cast<double>(i) * bar_w;
    out += "<rect class=\"bar\" x=\"" + Num(x + 1) + "\" y=\"" + Num(height - bottom - bh) +
           "\" width=\"" + Num(std::max(1.0, bar_w - 2)) + "\" height=\"" + Num(bh) +
           "\" fill=\"#4c78a8\"><title>" +
           HtmlEscape((i < h.bin_labels.size() ? h.bin_labels[i] : "") + ": " + Num(h.values[i])) +
           "</title></rect>";
    if (i < h.bin_labels.size() && (h.values.size() <= 16 || i % 2 == 0))
      out += Text(x + bar_w / 2, height - bottom + 14, h.bin_labels[i], "middle");
  }
  out += Text(left, height - 6, h.x_label);
  out += Text(0, 12, h.y_label + " (max " + Num(vmax) + ")");
  out += "</svg>";
  return out;
}

std::string SvgXY(const XYChart& c) {
  double xmin = INFINITY, xmax = -INFINITY, ymax = 0;
  auto tx = [&](double x) { return c.log_x ? std::log2(std::max(x, 1e-9)) : x; };
  for (const auto& s : c.series)
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) continue;
      xmin = std::min(xmin, tx(s.x[i]));
      xmax = std::max(xmax, tx(s.x[i]));
      ymax = std::max(ymax, s.y[i]);
    }
  if (!(xmin < xmax) || ymax <= 0) return "";
  const int height = 260, left = 60, bottom = 40, top = 10;
  double pw = kWidth - left - 160.0, ph = height - bottom - top;
  static const char* kColors[] = {"#4c78a8", "#e45756", "#54a24b", "#f58518", "#b279a2"};
  std::string out = "<svg class=\"xy\" width=\"" + std::to_string(kWidth) + "\" height=\"" +
                    std::to_string(height) + "\" role=\"img\" aria-label=\"" + HtmlEscape(c.title) + "\">";
  out += "<line x1=\"" + Num(left) + "\" y1=\"" + Num(top + ph) + "\" x2=\"" + Num(left + pw) +
         "\" y2=\"" + Num(top + ph) + "\" stroke=\"#333\"/>";
  for (size_t k = 0; k < c.series.size(); ++k) {
    const auto& s = c.series[k];
    std::string pts;
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) continue;
      double x = left + (tx(s.x[i]) - xmin) / (xmax - xmin) * pw;
      double y = top + ph - s.y[i] / ymax * ph;
      pts += Num(x) + "," + Num(y) + " ";
    }
    const char* color = kColors[k % 5];
    out += "<polyline class=\"series\" fill=\"none\" stroke=\"" + std::string(color) +
           "\" stroke-width=\"2\"" + (s.dashed ? " stroke-dasharray=\"6,4\"" : "") + " points=\"" +
           pts + "\"><title>" + HtmlEscape(s.name) + "</title></polyline>";
    out += "<text x=\"" + Num(left + pw + 10) + "\" y=\"" + Num(top + 14 + 16.0 * static_cast<double>(k)) +
           "\" fill=\"" + color + "\">" + HtmlEscape(s.name) + "</text>";
  }
  out += Text(left, height - 6, c.x_label + (c.log_x ? " (log scale)" : ""));
  out += Text(0, top + 10, Num(ymax) + " " + c.y_label);
  out += "</svg>";
  return out;
}

}  // namespace commdx::report
