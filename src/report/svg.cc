#include "report/svg.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "base/str_format.h"
#include "base/text.h"
#include "report/render_util.h"

namespace commdx::report {

namespace {

constexpr int kWidth = 900;

std::string Num(double v) { return StrFormat("%.1f", v); }

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

std::string Line(double x1, double y1, double x2, double y2, const char* color = "#333",
                 bool dashed = false) {
  return "<line x1=\"" + Num(x1) + "\" y1=\"" + Num(y1) + "\" x2=\"" + Num(x2) + "\" y2=\"" +
         Num(y2) + "\" stroke=\"" + color + "\"" + (dashed ? " stroke-dasharray=\"6,4\"" : "") +
         "/>";
}

// A round tick step (1, 2 or 5 x 10^k) that cuts `span` into about `parts` pieces.
double NiceStep(double span, int parts) {
  if (!(span > 0)) return 1;
  double raw = span / parts, mag = std::pow(10.0, std::floor(std::log10(raw)));
  double f = raw / mag;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

// Sparse merged work is drawn fainter, never below 30% so it stays visible.
std::string Opacity(double busy_fraction) {
  if (!(busy_fraction < 0.95)) return "";
  return StrFormat(" fill-opacity=\"%.2f\"", std::max(0.3, busy_fraction));
}

// An axis number: 3 significant digits at most, k/M suffixes for large counts.
std::string Short(double v) {
  if (std::fabs(v) >= 1e6) return StrFormat("%.3gM", v / 1e6);
  if (std::fabs(v) >= 1e4) return StrFormat("%.3gk", v / 1e3);
  return StrFormat("%.3g", v);
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
  const int label_w = 150, lane_h = 16, gap = 4, group_gap = 8, axis_h = 34;
  const double plot_w = kWidth - label_w - 30;
  std::vector<double> lane_y;
  double y = 4;
  for (size_t i = 0; i < t.lanes.size(); ++i) {
    if (i > 0 && t.lanes[i].group != t.lanes[i - 1].group) y += group_gap;
    lane_y.push_back(y);
    y += lane_h + gap;
  }
  const double axis_y = y + 2;
  int height = static_cast<int>(axis_y) + axis_h;
  std::string out = "<svg class=\"timeline\" width=\"" + std::to_string(kWidth) + "\" height=\"" +
                    std::to_string(height) + "\" role=\"img\" aria-label=\"" + HtmlEscape(t.title) +
                    "\">";
  double scale = plot_w / static_cast<double>(t1 - t0);
  for (size_t i = 0; i < t.lanes.size(); ++i) {
    const auto& lane = t.lanes[i];
    out += "<g class=\"lane\" data-lane=\"" + HtmlEscape(lane.name) + "\">";
    out += Text(0, lane_y[i] + lane_h - 4, lane.name);
    for (const auto& s : lane.segments) {
      double x = label_w + static_cast<double>(s.start_ns - t0) * scale;
      double w = std::max(0.5, static_cast<double>(s.end_ns - s.start_ns) * scale);
      out += "<rect class=\"seg seg-" + HtmlEscape(s.kind) + "\" x=\"" + Num(x) + "\" y=\"" +
             Num(lane_y[i]) + "\" width=\"" + Num(w) + "\" height=\"" + std::to_string(lane_h) +
             "\" fill=\"" + KindColor(s.kind) + "\"" + Opacity(s.busy_fraction) + "><title>" +
             HtmlEscape(s.label) + "</title></rect>";
    }
    out += "</g>";
  }
  out += Line(label_w, axis_y, label_w + plot_w, axis_y);
  const double span = static_cast<double>(t1 - t0), tick = NiceStep(span, 5);
  for (int k = 0; k * tick <= span * 1.0001 && k <= 20; ++k) {
    double x = label_w + plot_w * k * tick / span;
    out += Line(x, axis_y, x, axis_y + 4);
    out += Text(x, axis_y + 16, FormatDurationNs(k * tick), k == 0 ? "start" : "middle");
  }
  out += Text(label_w + plot_w / 2, axis_y + 30, "time from the step's start", "middle");
  out += "</svg>";
  return out;
}

std::string SvgHistogram(const Histogram& h) {
  if (h.values.empty()) return "";
  const int height = 250, left = 60, bottom = 46, top = 24;
  double vmax = 0;
  for (double v : h.values)
    if (std::isfinite(v)) vmax = std::max(vmax, v);
  const double ystep = NiceStep(vmax > 0 ? vmax : 1, 4);
  vmax = std::ceil((vmax > 0 ? vmax : 1) / ystep) * ystep;
  const double plot_w = kWidth - left - 20.0, plot_h = height - bottom - top;
  // Bars no wider than 48 px: a histogram of two bins should not look like a wall.
  double bar_w = std::min(48.0, plot_w / static_cast<double>(h.values.size()));
  // One label per `every` bars so that labels (about 30 px wide) never touch.
  size_t every = std::max<size_t>(1, static_cast<size_t>(std::ceil(34.0 / bar_w)));
  std::string out = "<svg class=\"histogram\" width=\"" + std::to_string(kWidth) + "\" height=\"" +
                    std::to_string(height) + "\" role=\"img\" aria-label=\"" + HtmlEscape(h.title) +
                    "\">";
  const double axis_w = std::min(plot_w, bar_w * static_cast<double>(h.values.size()) + 10);
  for (int k = 0; k * ystep <= vmax * 1.0001 && k <= 20; ++k) {
    double yv = k * ystep, yy = top + plot_h - plot_h * yv / vmax;
    out += Line(left, yy, left + axis_w, yy, k == 0 ? "#333" : "#e5e5e5");
    out += Text(left - 6, yy + 4, Short(yv), "end");
  }
  for (size_t i = 0; i < h.values.size(); ++i) {
    double v = std::isfinite(h.values[i]) ? std::max(0.0, h.values[i]) : 0.0;
    double bh = plot_h * v / vmax;
    double x = left + static_cast<double>(i) * bar_w;
    std::string label = i < h.bin_labels.size() ? h.bin_labels[i] : "";
    out += "<rect class=\"bar\" data-bin=\"" + HtmlEscape(label) + "\" data-value=\"" + Short(v) +
           "\" x=\"" + Num(x + 1) + "\" y=\"" + Num(top + plot_h - bh) + "\" width=\"" +
           Num(std::max(1.0, bar_w - 2)) + "\" height=\"" + Num(bh) +
           "\" fill=\"#4c78a8\"><title>" + HtmlEscape(label + ": " + Short(v)) + "</title></rect>";
    if (!label.empty() && i % every == 0)
      out += Text(x + bar_w / 2, top + plot_h + 14, label, "middle");
  }
  out += Text(left, height - 8, h.x_label);
  out += Text(0, 12, h.y_label);
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
  if (!std::isfinite(xmin) || !(ymax > 0)) return "";
  if (!(xmin < xmax)) {  // one x value: centre it
    xmin -= 1;
    xmax += 1;
  }
  const double ystep = NiceStep(ymax, 4);
  ymax = std::ceil(ymax * 1.02 / ystep) * ystep;
  const int height = 290, left = 60, bottom = 46, top = 24, legend_w = 190;
  const double pw = kWidth - left - legend_w - 10.0, ph = height - bottom - top;
  static const char* kColors[] = {"#4c78a8", "#e45756", "#54a24b", "#f58518", "#b279a2"};
  auto px = [&](double x) { return left + (tx(x) - xmin) / (xmax - xmin) * pw; };
  auto py = [&](double y) { return top + ph - y / ymax * ph; };
  std::string out = "<svg class=\"xy\" width=\"" + std::to_string(kWidth) + "\" height=\"" +
                    std::to_string(height) + "\" role=\"img\" aria-label=\"" + HtmlEscape(c.title) +
                    "\">";
  for (int k = 0; k * ystep <= ymax * 1.0001 && k <= 20; ++k) {
    double yv = k * ystep;
    out += Line(left, py(yv), left + pw, py(yv), k == 0 ? "#333" : "#e5e5e5");
    out += Text(left - 6, py(yv) + 4, Short(yv), "end");
  }
  // x ticks: powers of two on a log axis (every `step` octaves, labels kept apart), five even
  // ticks on a linear one.
  if (c.log_x) {
    int k0 = static_cast<int>(std::ceil(xmin)), k1 = static_cast<int>(std::floor(xmax));
    int step = std::max(1, static_cast<int>(std::ceil((k1 - k0 + 1) * 40.0 / pw)));
    for (int k = k0; k <= k1; ++k) {
      if ((k - k0) % step) continue;
      double x = left + (k - xmin) / (xmax - xmin) * pw;
      out += Line(x, top + ph, x, top + ph + 4);
      out += Text(x, top + ph + 16, c.x_bytes ? PowerOfTwoLabel(k) : Short(std::exp2(k)), "middle");
    }
  } else {
    for (int k = 0; k <= 4; ++k) {
      double xv = xmin + (xmax - xmin) * k / 4.0, x = left + pw * k / 4.0;
      out += Line(x, top + ph, x, top + ph + 4);
      out += Text(x, top + ph + 16, Short(xv), "middle");
    }
  }
  for (size_t k = 0; k < c.series.size(); ++k) {
    const auto& s = c.series[k];
    const char* color = kColors[k % 5];
    std::string pts, marks;
    size_t n = 0;
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) continue;
      pts += Num(px(s.x[i])) + "," + Num(py(s.y[i])) + " ";
      if (!s.dashed)
        marks += "<circle class=\"point\" cx=\"" + Num(px(s.x[i])) + "\" cy=\"" + Num(py(s.y[i])) +
                 "\" r=\"2.5\" fill=\"" + color + "\"/>";
      ++n;
    }
    out += "<g class=\"series\" data-series=\"" + HtmlEscape(s.name) + "\" data-points=\"" +
           std::to_string(n) + "\"><polyline fill=\"none\" stroke=\"" + color +
           "\" stroke-width=\"2\"" + (s.dashed ? " stroke-dasharray=\"6,4\"" : "") + " points=\"" +
           pts + "\"><title>" + HtmlEscape(s.name) + "</title></polyline>" + marks + "</g>";
    double ly = top + 14 + 18.0 * static_cast<double>(k);
    out += "<g stroke-width=\"2\">" +
           Line(left + pw + 12, ly - 4, left + pw + 32, ly - 4, color, s.dashed) + "</g>";
    out += Text(left + pw + 38, ly, s.name);
  }
  out += Text(left + pw / 2, height - 8, c.x_label + (c.log_x ? " (log scale)" : ""), "middle");
  out += Text(0, 12, c.y_label);
  out += "</svg>";
  return out;
}

}  // namespace commdx::report
