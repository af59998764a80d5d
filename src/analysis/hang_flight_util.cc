#include "analysis/hang_flight_util.h"

#include <algorithm>

#include "base/str_format.h"

namespace commdx::analysis {

namespace {

constexpr size_t kMaxFrames = 6;

std::string SizesText(const std::vector<std::vector<int64_t>>& sizes) {
  std::string s;
  for (const auto& t : sizes) {
    s += s.empty() ? "[" : " [";
    for (size_t k = 0; k < t.size(); ++k) s += (k ? "," : "") + std::to_string(t[k]);
    s += "]";
  }
  return s.empty() ? "[]" : s;
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

// Frames inside torch itself say little; the program's own frames come first.
bool IsLibraryFrame(const FrFrame& fr) {
  return fr.file.find("/torch/") != std::string::npos || fr.file.rfind("torch/", 0) == 0;
}

}  // namespace

std::vector<FrGroupView> GroupFlightDumps(const std::vector<FrDump>& dumps) {
  std::map<std::string, FrGroupView> groups;
  // The ranks each group's members list, as bits by rank: every dump of an N-rank job lists the
  // N ranks of its groups, and a tree of N ranks filled from N dumps cost N^2 log N.
  std::map<std::string, std::vector<bool>> expected;
  auto set = [](std::vector<bool>& bits, int r) {
    if (r < 0) return;
    if (static_cast<size_t>(r) >= bits.size()) bits.resize(static_cast<size_t>(r) + 1);
    bits[static_cast<size_t>(r)] = true;
  };
  std::vector<bool> dumped;
  for (size_t d = 0; d < dumps.size(); ++d) {
    const FrDump& dump = dumps[d];
    const int rank = dump.rank >= 0 ? dump.rank : static_cast<int>(d);
    set(dumped, rank);
    for (const auto& pg : dump.groups) {
      std::vector<bool>& bits = expected[pg.name];
      for (int r : pg.ranks) set(bits, r);
    }
    std::map<std::string, FrRankView> mine;
    for (const auto& e : dump.entries) {
      if (e.is_p2p || e.collective_seq_id < 0) continue;
      FrRankView& r = mine[e.pg_name];
      r.rank = rank;
      r.file = dump.file;
      r.by_seq.emplace(e.collective_seq_id, &e);
      FrGroupView& g = groups[e.pg_name];
      g.name = e.pg_name;
      if (g.desc.empty()) g.desc = e.pg_desc;
    }
    for (auto& [name, r] : mine) groups[name].ranks.push_back(std::move(r));
  }
  std::vector<FrGroupView> out;
  for (auto& [name, g] : groups) {
    std::sort(g.ranks.begin(), g.ranks.end(),
              [](const FrRankView& a, const FrRankView& b) { return a.rank < b.rank; });
    const std::vector<bool>& bits = expected[name];
    for (size_t r = 0; r < bits.size(); ++r)
      if (bits[r] && (r >= dumped.size() || !dumped[r])) g.missing.push_back(static_cast<int>(r));
    out.push_back(std::move(g));
  }
  return out;
}

std::string DescribeEntry(const FrEntry& e) {
  return e.profiling_name + " " + SizesText(e.input_sizes) + " " + Join(e.input_dtypes);
}

std::string Signature(const FrEntry& e) { return DescribeEntry(e); }

void AddEntryEvidence(Finding& f, const FrRankView& r, const FrEntry& e) {
  SourceLoc loc{r.file};
  f.refs.push_back({loc, StrFormat("rank %d: #%lld %s, state %s", r.rank,
                                   static_cast<long long>(e.collective_seq_id),
                                   DescribeEntry(e).c_str(), e.state.c_str())});
  std::vector<const FrFrame*> order;
  for (const auto& fr : e.frames)
    if (!IsLibraryFrame(fr)) order.push_back(&fr);
  for (const auto& fr : e.frames)
    if (IsLibraryFrame(fr) && order.size() < kMaxFrames) order.push_back(&fr);
  for (size_t k = 0; k < order.size() && k < kMaxFrames; ++k)
    f.refs.push_back(
        {loc, StrFormat("    %s at %s:%lld", order[k]->name.c_str(), order[k]->file.c_str(),
                        static_cast<long long>(order[k]->line))});
}

std::string NumOrUnknown(int64_t v) { return v >= 0 ? std::to_string(v) : "unknown"; }

std::string RanksPhrase(const std::vector<int>& ranks) {
  std::string list;
  size_t known = 0;
  for (int r : ranks)
    if (r >= 0) list += (list.empty() ? "" : ",") + std::to_string(r), ++known;
  // A line without a rank prefix speaks for a process the log does not number.
  if (known == 0) return ranks.size() > 1 ? "ranks the log does not name" : "a rank";
  std::string s = (known > 1 ? "ranks " : "rank ") + list;
  if (known < ranks.size()) s += " and a rank the log does not name";
  return s;
}

}  // namespace commdx::analysis
