#include "pipeline/bandwidth_chart.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/bench_summary.h"
#include "base/str_format.h"

namespace commdx::pipeline {

using report::Series;
using report::XYChart;

namespace {

std::string Gbps(double v) { return StrFormat("%.0f GB/s", v); }

double MedianOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Sizes -> busbw samples; pooled per quarter octave (keyed by its smallest size) when there are
// more distinct sizes than `max_points`.
std::map<uint64_t, std::vector<double>> BySize(
    const std::vector<const analysis::CollectiveBw*>& list, size_t max_points) {
  std::map<uint64_t, std::vector<double>> exact;
  for (const auto* b : list) exact[b->bytes].push_back(b->busbw_gbps);
  if (exact.size() <= max_points) return exact;
  std::map<int, std::pair<uint64_t, std::vector<double>>> pooled;
  for (auto& [bytes, v] : exact) {
    auto& slot = pooled[static_cast<int>(std::floor(4 * std::log2(static_cast<double>(bytes))))];
    if (slot.second.empty()) slot.first = bytes;
    slot.second.insert(slot.second.end(), v.begin(), v.end());
  }
  std::map<uint64_t, std::vector<double>> out;
  for (auto& [k, slot] : pooled) out[slot.first] = std::move(slot.second);
  return out;
}

}  // namespace

std::vector<XYChart> TraceBandwidthCharts(const analysis::TraceFacts& facts, size_t max_charts,
                                          size_t max_points) {
  std::map<CollectiveType, std::vector<const analysis::CollectiveBw*>> by_type;
  for (const auto& b : facts.bandwidth)
    if (b.bytes > 0 && b.busbw_gbps > 0 && std::isfinite(b.busbw_gbps))
      by_type[b.type].push_back(&b);
  std::vector<std::pair<CollectiveType, const std::vector<const analysis::CollectiveBw*>*>> order;
  for (const auto& [type, list] : by_type) order.push_back({type, &list});
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return a.second->size() > b.second->size();
  });
  if (order.size() > max_charts) order.resize(max_charts);
  std::vector<XYChart> out;
  for (const auto& [type, list] : order) {
    XYChart c;
    c.title = std::string("Bus bandwidth vs message size: ") + CollectiveTypeName(type) +
              " in the trace (" + std::to_string(list->size()) + " calls)";
    c.x_label = "message size";
    c.y_label = "GB/s busbw";
    c.log_x = true;
    c.x_bytes = true;
    Series measured{"achieved (median per size)", {}, {}, false};
    auto sizes = BySize(*list, max_points);
    for (const auto& [bytes, v] : sizes) {
      measured.x.push_back(static_cast<double>(bytes));
      measured.y.push_back(MedianOf(v));
    }
    c.series.push_back(std::move(measured));
    const int nranks = list->front()->nranks;
    const double factor = BusBwFactor(type, nranks);
    if (facts.link.known() && factor > 0) {
      // The model from a quarter of the smallest size to four times the largest, so a job with
      // one bucket size still shows where it sits on the curve.
      Series expected{"expected for the link", {}, {}, true};
      double lo = static_cast<double>(sizes.begin()->first) / 4;
      double hi = static_cast<double>(sizes.rbegin()->first) * 4;
      for (double s = std::max(1.0, lo); s <= hi * 1.0001; s *= std::sqrt(2.0)) {
        expected.x.push_back(s);
        expected.y.push_back(facts.link.ExpectedBusBw(s * factor));
      }
      c.series.push_back(std::move(expected));
      c.note = StrFormat("; expected: %s, %.0f us + bus bytes / %.0f GB/s", facts.link.what.c_str(),
                         facts.link.latency_us, facts.link.peak_busbw_gbps);
    } else {
      c.note = "; no expected line: " +
               (facts.link.what.empty() ? std::string("link unknown") : facts.link.what);
    }
    c.note = "Bus bandwidth by the nccl-tests factors on " + std::to_string(nranks) + " ranks" +
             c.note + ".";
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<XYChart> BenchBandwidthCharts(const std::vector<BenchResult>& results,
                                          const std::vector<analysis::BenchSummary>& summaries) {
  std::vector<XYChart> out;
  for (size_t i = 0; i < results.size() && i < summaries.size(); ++i) {
    const BenchResult& r = results[i];
    if (r.rows.empty()) continue;
    XYChart c;
    c.title =
        "Bus bandwidth vs message size: " + r.case_key + " (" +
        (r.source == BenchSource::kNcclTests ? "nccl-tests" + (r.file.empty() ? "" : ", " + r.file)
                                             : std::string("commdx bench")) +
        ", " + std::to_string(r.nranks) + " ranks)";
    c.x_label = "message size";
    c.y_label = "GB/s busbw";
    c.log_x = true;
    c.x_bytes = true;
    Series oop{"out-of-place", {}, {}, false}, ip{"in-place", {}, {}, false};
    for (const BenchRow& row : r.rows) {
      if (row.bytes == 0) continue;
      if (row.out_of_place.valid && std::isfinite(row.out_of_place.busbw_gbps)) {
        oop.x.push_back(static_cast<double>(row.bytes));
        oop.y.push_back(row.out_of_place.busbw_gbps);
      }
      if (row.in_place.valid && std::isfinite(row.in_place.busbw_gbps)) {
        ip.x.push_back(static_cast<double>(row.bytes));
        ip.y.push_back(row.in_place.busbw_gbps);
      }
    }
    if (oop.x.empty() && ip.x.empty()) continue;
    std::vector<double> xs = oop.x.empty() ? ip.x : oop.x;
    if (!oop.x.empty()) c.series.push_back(std::move(oop));
    if (!ip.x.empty()) c.series.push_back(std::move(ip));
    const analysis::BenchSummary& s = summaries[i];
    if (s.expected.known) {
      auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
      c.series.push_back(Series{"link line rate",
                                {*lo, *hi},
                                {s.expected.line_rate_gbps, s.expected.line_rate_gbps},
                                true});
      c.note = "Line rate: " + s.expected.basis + ".";
      if (s.has_data)
        c.note += " Plateau " + Gbps(s.plateau_busbw_gbps) + " = " +
                  std::to_string(static_cast<int>(std::lround(100 * s.efficiency))) + "% of it.";
    } else {
      c.note = "No expected line: " +
               (s.expected.basis.empty() ? std::string("link not detected") : s.expected.basis) +
               ".";
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace commdx::pipeline
