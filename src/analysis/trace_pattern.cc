#include "analysis/trace_pattern.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "analysis/catalogue.h"
#include "base/str_format.h"
#include "base/text.h"

namespace commdx::analysis {

int SizeBucket(uint64_t b) {
  if (b < (64u << 10)) return 0;
  if (b < (1u << 20)) return 1;
  if (b < (16u << 20)) return 2;
  if (b < (256u << 20)) return 3;
  return 4;
}

CommFamily FamilyOf(const RankTrace&, const Collective& c) {
  return c.family == CommFamily::kNone ? CommFamily::kNccl : c.family;
}

std::string CollectiveLabel(CollectiveType type, CommFamily family) {
  std::string s = CollectiveTypeName(type);
  if (family != CommFamily::kNccl && family != CommFamily::kNone)
    s += std::string(" [") + CommFamilyName(family) + "]";
  return s;
}

std::vector<PatternRow> CommPattern(const TraceSet& set) {
  // The rank with the most collectives speaks for its groups (every rank issues the same calls).
  const RankTrace* best = nullptr;
  auto launched = [](const RankTrace& t) {
    return std::count_if(t.collectives.begin(), t.collectives.end(),
                         [](const Collective& c) { return c.launched; });
  };
  for (const RankTrace& t : set.ranks)
    if (!best || launched(t) > launched(*best)) best = &t;
  std::vector<PatternRow> rows;
  if (!best || best->collectives.empty()) return rows;
  const RankTrace& t = *best;
  std::map<std::tuple<int32_t, CollectiveType, CommFamily>, std::vector<const Collective*>> groups;
  for (const Collective& c : t.collectives)
    if (c.launched) groups[{c.pg, c.type, FamilyOf(t, c)}].push_back(&c);
  const double steps = std::max<size_t>(1, t.steps.size());
  for (const auto& [key, calls] : groups) {
    PatternRow r;
    const auto& [pg_index, type, family] = key;
    if (pg_index >= 0) {
      const ProcessGroupInfo& pg = t.process_groups[pg_index];
      r.pg = pg.name;
      r.pg_desc = pg.desc;
      r.ranks = pg.ranks;
    }
    r.type = type;
    r.family = family;
    r.count = calls.size();
    r.per_step = static_cast<double>(calls.size()) / steps;
    std::vector<int64_t> sizes, channels;
    for (const Collective* c : calls) {
      r.time_ns += c->end_ns - c->start_ns;
      channels.push_back(c->grid_x);
      if (c->bytes == 0) {  // unknown: no element count or dtype in the trace
        ++r.unknown_size;
        continue;
      }
      r.bytes_total += c->bytes;
      sizes.push_back(static_cast<int64_t>(c->bytes));
      ++r.histogram[SizeBucket(c->bytes)];
    }
    r.median_bytes = static_cast<uint64_t>(Median(sizes));
    r.median_channels = static_cast<int>(Median(channels));
    rows.push_back(std::move(r));
  }
  std::sort(rows.begin(), rows.end(),
            [](const PatternRow& a, const PatternRow& b) { return a.time_ns > b.time_ns; });
  return rows;
}

std::string PatternName(const std::vector<PatternRow>& rows) {
  int64_t ar = 0, ag_rs = 0, p2p = 0, a2a = 0, total = 0;
  for (const auto& r : rows) {
    total += r.time_ns;
    switch (r.type) {
      case CollectiveType::kAllReduce:
        ar += r.time_ns;
        break;
      case CollectiveType::kAllGather:
      case CollectiveType::kReduceScatter:
        ag_rs += r.time_ns;
        break;
      case CollectiveType::kSend:
      case CollectiveType::kRecv:
      case CollectiveType::kSendRecv:
        p2p += r.time_ns;
        break;
      case CollectiveType::kAllToAll:
        a2a += r.time_ns;
        break;
      default:
        break;
    }
  }
  if (total == 0) return "no communication kernels";
  auto share = [total](int64_t x) { return static_cast<double>(x) / static_cast<double>(total); };
  if (share(a2a) >= 0.4) return "all-to-all heavy (MoE / expert or sequence parallel)";
  if (share(p2p) >= 0.4) return "send/recv heavy (pipeline parallel)";
  if (share(ag_rs) >= 0.4) return "all-gather + reduce-scatter heavy (FSDP / ZeRO)";
  if (share(ar) >= 0.4) return "all-reduce heavy (DDP / data parallel)";
  return "mixed";
}

std::vector<Finding> FindPattern(const AnalysisInput& input, const Options&) {
  const std::vector<PatternRow>& rows = input.comm_pattern();
  if (rows.empty()) return {};
  const TraceSet& set = input.job().trace;
  const TraceFacts& facts = input.trace_facts();
  Finding f = NewFinding("trace.pattern");
  f.severity = Severity::kInfo;
  std::string name = PatternName(rows);
  f.title = "Communication pattern: " + name;
  std::string detail;
  double per_step = 0;
  for (const auto& r : rows) {
    if (!detail.empty()) detail += "; ";
    std::string median = r.unknown_size == r.count
                             ? "size unknown"
                             : "median " + FormatBytes(static_cast<double>(r.median_bytes));
    detail += CollectiveLabel(r.type, r.family) + (r.pg.empty() ? "" : " on group " + r.pg) +
              StrFormat(": %.1f per step, %s", r.per_step, median.c_str());
    if (r.unknown_size > 0 && r.unknown_size < r.count)
      detail += " (" + std::to_string(r.unknown_size) + " of " + std::to_string(r.count) +
                " calls of unknown size)";
    per_step += r.per_step;
  }
  f.detail = detail + ". Link: " + (facts.link.what.empty() ? "unknown" : facts.link.what) + ".";
  f.metrics.push_back({"collectives_per_step", per_step, Unit::kCount});
  f.metrics.push_back({"ranks", static_cast<double>(set.ranks.size()), Unit::kCount});
  f.metrics.push_back(
      {"process_groups", static_cast<double>(set.process_groups.size()), Unit::kCount});
  f.confidence = 0.9;
  return {f};
}

}  // namespace commdx::analysis
