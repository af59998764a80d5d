#include "pipeline/size_histogram_chart.h"

#include <algorithm>
#include <bit>
#include <map>

#include "report/render_util.h"

namespace commdx::pipeline {

using report::Histogram;

namespace {

int Log2Floor(uint64_t v) { return 63 - std::countl_zero(v); }

const RankTrace* Speaker(const TraceSet& set) {
  const RankTrace* best = nullptr;
  size_t best_n = 0;
  for (const RankTrace& t : set.ranks) {
    size_t n = static_cast<size_t>(std::count_if(t.collectives.begin(), t.collectives.end(),
                                                 [](const Collective& c) { return c.launched; }));
    if (!best || n > best_n) best = &t, best_n = n;
  }
  return best_n ? best : nullptr;
}

}  // namespace

std::vector<Histogram> CollectiveSizeHistograms(const TraceSet& set, size_t max_charts) {
  std::vector<Histogram> out;
  const RankTrace* t = Speaker(set);
  if (!t) return out;
  struct Group {
    std::map<int, uint64_t> bins;  // log2 size -> calls
    uint64_t calls = 0, unsized = 0;
  };
  std::map<std::pair<int32_t, CollectiveType>, Group> groups;
  for (const Collective& c : t->collectives) {
    if (!c.launched) continue;
    Group& g = groups[{c.pg, c.type}];
    ++g.calls;
    if (c.bytes == 0)
      ++g.unsized;
    else
      ++g.bins[Log2Floor(c.bytes)];
  }
  std::vector<std::pair<std::pair<int32_t, CollectiveType>, const Group*>> order;
  for (const auto& [key, g] : groups)
    if (!g.bins.empty()) order.push_back({key, &g});
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.second->calls > b.second->calls; });
  if (order.size() > max_charts) order.resize(max_charts);
  for (const auto& [key, g] : order) {
    Histogram h;
    std::string pg = "?";
    if (key.first >= 0 && static_cast<size_t>(key.first) < t->process_groups.size()) {
      const ProcessGroupInfo& info = t->process_groups[static_cast<size_t>(key.first)];
      pg = info.name + (info.desc.empty() ? "" : " (" + info.desc + ")");
    }
    h.title =
        std::string("Collective sizes: ") + CollectiveTypeName(key.second) + " in group " + pg;
    h.x_label = "message size, power-of-two bins [S, 2S)";
    h.y_label = "calls on rank " + std::to_string(t->rank);
    int lo = g->bins.begin()->first, hi = g->bins.rbegin()->first;
    for (int k = lo; k <= hi; ++k) {
      h.bin_labels.push_back(report::PowerOfTwoLabel(k));
      auto it = g->bins.find(k);
      h.values.push_back(it == g->bins.end() ? 0.0 : static_cast<double>(it->second));
    }
    h.note = std::to_string(g->calls) + " calls in the trace of rank " + std::to_string(t->rank);
    if (g->unsized) h.note += "; " + std::to_string(g->unsized) + " of unknown size not shown";
    h.note += ".";
    out.push_back(std::move(h));
  }
  return out;
}

}  // namespace commdx::pipeline
