#include "analysis/trace_busbw.h"

#include <algorithm>
#include <set>

namespace commdx::analysis {

namespace {

bool Has(const std::string& s, const char* p) { return s.find(p) != std::string::npos; }

struct LinkRow {
  const char* gpu;  // substring of the GPU name
  const char* link;
  double busbw_gbps;  // healthy large-message all_reduce busbw within one node
  double latency_us;
};

// Plateau busbw of a healthy ring all_reduce within one node (docs/bench-method.md): 8xA100 ~230,
// 8xH100/H200 ~365 (2xH200 measured 346), PCIe-only boxes 20-35.
constexpr LinkRow kLinks[] = {
    {"H100", "NVLink4", 350, 13},        {"H200", "NVLink4", 350, 13},
    {"H800", "NVLink4 (H800)", 260, 13}, {"B200", "NVLink5", 700, 13},
    {"B100", "NVLink5", 700, 13},        {"A100", "NVLink3", 230, 13},
    {"A800", "NVLink3 (A800)", 160, 13}, {"V100", "NVLink2", 130, 15},
};

}  // namespace

double LinkExpectation::ExpectedBusBw(double bus_bytes) const {
  if (!known() || bus_bytes <= 0) return 0;
  double t = latency_us * 1e-6 + bus_bytes / (peak_busbw_gbps * 1e9);
  return bus_bytes / t / 1e9;
}

LinkExpectation ExpectLink(const TraceSet& set) {
  LinkExpectation e;
  if (set.ranks.empty() || set.ranks[0].devices.empty()) return e;
  const std::string& name = set.ranks[0].devices[0].name;
  int max_group = 0;
  for (const auto& pg : set.process_groups) max_group = std::max(max_group, pg.size);
  for (const auto& r : set.ranks) max_group = std::max(max_group, r.world_size);
  if (max_group > static_cast<int>(set.ranks[0].devices.size())) {
    e.what = "unknown: groups span more GPUs than one node shows (" + name + ")";
    return e;
  }
  if (Has(name, "PCIe") || Has(name, "NVL ") || name.ends_with("NVL")) {
    e.what = "PCIe (" + name + "), within one node";
    e.peak_busbw_gbps = Has(name, "H100") || Has(name, "H200") ? 40 : 20;
    e.latency_us = 15;
    return e;
  }
  for (const LinkRow& row : kLinks) {
    if (!Has(name, row.gpu)) continue;
    e.what = std::string(row.link) + " (" + name + "), within one node";
    e.peak_busbw_gbps = row.busbw_gbps;
    e.latency_us = row.latency_us;
    return e;
  }
  e.what = "unknown GPU interconnect (" + name + ")";
  return e;
}

std::vector<CollectiveBw> MeasureBandwidth(const TraceSet& set, const CrossRank& cross,
                                           const LinkExpectation& link) {
  std::vector<CollectiveBw> out;
  auto fill = [&link](CollectiveBw& b) {
    if (b.time_ns <= 0 || b.bytes == 0) return;
    b.algbw_gbps = static_cast<double>(b.bytes) / static_cast<double>(b.time_ns);  // B/ns = GB/s
    double factor = BusBwFactor(b.type, b.nranks);
    b.busbw_gbps = b.algbw_gbps * factor;
    b.expected_busbw_gbps = link.ExpectedBusBw(static_cast<double>(b.bytes) * factor);
  };
  std::set<std::pair<int, int32_t>> matched;
  for (const MatchedCollective& m : cross.matches) {
    const MatchedPart* late = nullptr;
    for (const MatchedPart& p : m.parts) {
      matched.insert({p.trace, p.coll});
      if (p.trace == m.late) late = &p;
    }
    if (!late) continue;
    const Collective& c = set.ranks[late->trace].collectives[late->coll];
    CollectiveBw b;
    b.trace = late->trace;
    b.coll = late->coll;
    b.step = m.step;
    b.type = c.type;
    b.bytes = c.bytes;
    b.nranks = c.group_size > 0 ? c.group_size : static_cast<int>(m.parts.size());
    b.channels = c.grid_x;
    b.time_ns = m.transfer_ns;
    b.transfer_only = true;
    fill(b);
    out.push_back(b);
  }
  for (size_t ti = 0; ti < set.ranks.size(); ++ti) {
    const RankTrace& t = set.ranks[ti];
    for (size_t ci = 0; ci < t.collectives.size(); ++ci) {
      const Collective& c = t.collectives[ci];
      if (c.gpu_op < 0 || !c.launched ||
          matched.count({static_cast<int>(ti), static_cast<int32_t>(ci)}))
        continue;
      CollectiveBw b;
      b.trace = static_cast<int>(ti);
      b.coll = static_cast<int32_t>(ci);
      b.type = c.type;
      b.bytes = c.bytes;
      b.nranks = c.group_size;
      b.channels = c.grid_x;
      b.time_ns = c.end_ns - c.start_ns;
      fill(b);
      out.push_back(b);
    }
  }
  return out;
}

}  // namespace commdx::analysis
