#include "analysis/trace_cross_rank.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "analysis/trace_pattern.h"

namespace commdx::analysis {

namespace {

// (pg, class, src, dst, step, index-or-seq). class: 0 collective by order, 1 collective by Seq,
// 2 point-to-point by order, 3 + CommFamily: a collective of no process group run by kernels other
// than NCCL's (symmetric memory, custom all-reduce, DeepEP: no Seq, no group), by order within
// its family, so that they never pair with NCCL calls of no known group.
using Key = std::tuple<std::string, int, int, int, int64_t, int64_t>;

struct Entry {
  int trace;
  int32_t coll;
};

int64_t StepOf(const RankTrace& t, int64_t ts) {
  if (t.step_source != StepSource::kProfilerStep) return -1;
  auto it = std::upper_bound(t.steps.begin(), t.steps.end(), ts,
                             [](int64_t x, const Step& s) { return x < s.cpu_start_ns; });
  if (it == t.steps.begin()) return -1;
  --it;
  return ts < it->cpu_end_ns ? it->number : -1;
}

void CollectKeys(const TraceSet& set, std::map<Key, std::vector<Entry>>& by_key) {
  for (size_t ti = 0; ti < set.ranks.size(); ++ti) {
    const RankTrace& t = set.ranks[ti];
    std::map<std::tuple<std::string, int, int, int, int64_t>, int64_t> order;
    for (size_t ci = 0; ci < t.collectives.size(); ++ci) {
      const Collective& c = t.collectives[ci];
      if (c.gpu_op < 0 || !c.launched) continue;
      std::string pg = c.pg >= 0 ? t.process_groups[c.pg].name : std::string("?");
      int cls = 0, src = -1, dst = -1;
      if (IsPointToPoint(c.type)) {
        if (c.peer < 0 || c.type == CollectiveType::kSendRecv) continue;  // direction unknown
        cls = 2;
        src = c.type == CollectiveType::kSend ? t.rank : c.peer;
        dst = c.type == CollectiveType::kSend ? c.peer : t.rank;
      } else if (c.seq >= 0) {
        by_key[Key{pg, 1, -1, -1, -1, c.seq}].push_back(
            {static_cast<int>(ti), static_cast<int32_t>(ci)});
        continue;
      } else if (c.pg < 0) {
        CommFamily family = FamilyOf(t, c);
        if (family != CommFamily::kNccl) cls = 3 + static_cast<int>(family);
      }
      int64_t step = StepOf(t, c.issue_ns);
      int64_t idx = order[{pg, cls, src, dst, step}]++;
      by_key[Key{pg, cls, src, dst, step, idx}].push_back(
          {static_cast<int>(ti), static_cast<int32_t>(ci)});
    }
  }
}

// Reference: the trace with the most collectives; offsets from the median end difference.
std::vector<int64_t> AlignClocks(const TraceSet& set,
                                 const std::map<Key, std::vector<Entry>>& by_key, int reference) {
  std::vector<std::vector<int64_t>> diffs(set.ranks.size());
  for (const auto& [key, entries] : by_key) {
    const Entry* ref = nullptr;
    for (const Entry& e : entries)
      if (e.trace == reference) ref = &e;
    if (!ref) continue;
    int64_t ref_end = set.ranks[ref->trace].collectives[ref->coll].end_ns;
    for (const Entry& e : entries)
      diffs[e.trace].push_back(ref_end - set.ranks[e.trace].collectives[e.coll].end_ns);
  }
  std::vector<int64_t> offset(set.ranks.size(), 0);
  for (size_t i = 0; i < diffs.size(); ++i) offset[i] = Median(diffs[i]);
  offset[reference] = 0;
  return offset;
}

// Every comm kernel of trace `ti` not in a match, as intervals on its own clock.
Intervals Unmeasured(const RankTrace& t, const std::vector<bool>& matched) {
  std::vector<Interval> v;
  for (size_t ci = 0; ci < t.collectives.size(); ++ci) {
    const Collective& c = t.collectives[ci];
    if (c.gpu_op >= 0 && !matched[ci] && c.end_ns > c.start_ns) v.push_back({c.start_ns, c.end_ns});
  }
  return MergeIntervals(std::move(v));
}

void MarkUnmeasured(const TraceSet& set, CrossRank& out) {
  std::vector<std::vector<bool>> matched(set.ranks.size());
  for (size_t i = 0; i < set.ranks.size(); ++i)
    matched[i].assign(set.ranks[i].collectives.size(), false);
  for (const MatchedCollective& m : out.matches)
    for (const MatchedPart& p : m.parts) matched[p.trace][p.coll] = true;
  out.unmeasured.resize(set.ranks.size());
  for (size_t i = 0; i < set.ranks.size(); ++i)
    out.unmeasured[i] = Unmeasured(set.ranks[i], matched[i]);
}

}  // namespace

CrossRank MatchAcrossRanks(const TraceSet& set) {
  CrossRank out;
  out.wait.resize(set.ranks.size());
  out.offset_ns.assign(set.ranks.size(), 0);
  if (set.ranks.size() < 2) {
    MarkUnmeasured(set, out);
    return out;
  }
  std::map<Key, std::vector<Entry>> by_key;
  CollectKeys(set, by_key);
  int reference = 0;
  for (size_t i = 1; i < set.ranks.size(); ++i)
    if (set.ranks[i].collectives.size() > set.ranks[reference].collectives.size())
      reference = static_cast<int>(i);
  out.reference = reference;
  out.offset_ns = AlignClocks(set, by_key, reference);

  std::vector<std::vector<Interval>> wait(set.ranks.size());
  for (const auto& [key, entries] : by_key) {
    if (entries.size() < 2) {
      ++out.unmatched;
      continue;
    }
    const Collective& first = set.ranks[entries[0].trace].collectives[entries[0].coll];
    // A collective some of whose members were not read: the last to arrive may be one not seen.
    if (!IsPointToPoint(first.type) && first.group_size > static_cast<int>(entries.size())) {
      ++out.partial;
      continue;
    }
    MatchedCollective m;
    m.pg = std::get<0>(key);
    m.step = StepOf(set.ranks[entries[0].trace], first.issue_ns);
    m.type = first.type;
    m.bytes = first.bytes;
    m.group_size = first.group_size;
    bool agree = true;
    for (const Entry& e : entries) {
      const Collective& c = set.ranks[e.trace].collectives[e.coll];
      bool same_kind = c.type == first.type || IsPointToPoint(c.type) == IsPointToPoint(first.type);
      if (!same_kind || (!IsPointToPoint(c.type) && c.bytes != first.bytes)) agree = false;
      int64_t off = out.offset_ns[e.trace];
      m.parts.push_back({e.trace, e.coll, c.start_ns + off, c.end_ns + off, 0, 0});
    }
    if (!agree) {
      ++out.mismatched;
      continue;
    }
    m.last_start_ns = INT64_MIN;
    for (const MatchedPart& p : m.parts)
      if (p.start_ns > m.last_start_ns) m.last_start_ns = p.start_ns, m.late = p.trace;
    std::vector<int64_t> transfers;
    for (MatchedPart& p : m.parts) {
      p.wait_ns = m.last_start_ns - p.start_ns;
      p.transfer_ns = std::max<int64_t>(0, p.end_ns - std::max(m.last_start_ns, p.start_ns));
      p.wait_ns = std::min(p.wait_ns, p.end_ns - p.start_ns);
      m.max_wait_ns = std::max(m.max_wait_ns, p.wait_ns);
      transfers.push_back(p.transfer_ns);
      if (p.wait_ns > 0) {
        int64_t local = p.start_ns - out.offset_ns[p.trace];
        wait[p.trace].push_back({local, local + p.wait_ns});
      }
    }
    m.transfer_ns = Median(transfers);
    out.matches.push_back(std::move(m));
  }
  for (size_t i = 0; i < wait.size(); ++i) out.wait[i] = MergeIntervals(std::move(wait[i]));
  std::sort(out.matches.begin(), out.matches.end(),
            [](const MatchedCollective& a, const MatchedCollective& b) {
              return a.last_start_ns < b.last_start_ns;
            });
  MarkUnmeasured(set, out);
  return out;
}

}  // namespace commdx::analysis
