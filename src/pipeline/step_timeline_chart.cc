#include "pipeline/step_timeline_chart.h"

#include <algorithm>

#include "base/text.h"
#include "pipeline/rank_events.h"

namespace commdx::pipeline {

using report::Lane;
using report::Segment;
using report::Timeline;

namespace {

using analysis::Interval;
using analysis::Intervals;
using analysis::StepBreakdown;

struct ChosenStep {
  int64_t number = 0;
  size_t complete = 0;     // complete steps it was chosen among
  int64_t slowest_ns = 0;  // its time on the slowest rank
  std::vector<const StepBreakdown*> ranks;
};

// Steps by number; the one whose slowest-rank time is the median among complete steps (all
// steps when none is complete). The rows are grouped by number in a sorted list (a grown trace
// has tens of thousands of steps: a map node and a vector per step cost more than the rest of
// the chart).
std::optional<ChosenStep> ChooseStep(const std::vector<StepBreakdown>& steps) {
  std::vector<const StepBreakdown*> rows;
  for (const auto& s : steps)
    if (s.total_ns() > 0) rows.push_back(&s);
  std::stable_sort(rows.begin(), rows.end(), [](const StepBreakdown* a, const StepBreakdown* b) {
    return a->step < b->step;
  });
  struct Group {
    size_t begin = 0, end = 0;  // in rows
    int64_t slowest_ns = 0;
    bool partial = false;
  };
  std::vector<Group> groups;
  for (size_t i = 0; i < rows.size();) {
    Group g{i, i, 0, false};
    for (; g.end < rows.size() && rows[g.end]->step == rows[i]->step; ++g.end) {
      g.slowest_ns = std::max(g.slowest_ns, rows[g.end]->total_ns());
      g.partial = g.partial || rows[g.end]->partial;
    }
    groups.push_back(g);
    i = g.end;
  }
  std::vector<const Group*> complete, all;
  for (const Group& g : groups) {
    all.push_back(&g);
    if (!g.partial) complete.push_back(&g);
  }
  std::vector<const Group*>& pool = complete.empty() ? all : complete;
  if (pool.empty()) return std::nullopt;
  std::stable_sort(pool.begin(), pool.end(),
                   [](const Group* a, const Group* b) { return a->slowest_ns < b->slowest_ns; });
  const Group& g = *pool[(pool.size() - 1) / 2];
  ChosenStep out;
  out.number = rows[g.begin]->step;
  out.complete = complete.size();
  out.slowest_ns = g.slowest_ns;
  out.ranks.assign(rows.begin() + static_cast<long>(g.begin),
                   rows.begin() + static_cast<long>(g.end));
  return out;
}

// Waiting in a step: what other ranks' lateness or the host shows up as.
int64_t Waiting(const StepBreakdown& s) {
  return s.comm_exposed_ns + s.idle_host_ns + s.idle_data_ns;
}

// The ranks that get lanes, in rank order.
std::vector<const StepBreakdown*> PickRanks(std::vector<const StepBreakdown*> ranks, size_t max) {
  if (max > 0 && ranks.size() > max) {
    std::stable_sort(
        ranks.begin(), ranks.end(),
        [](const StepBreakdown* a, const StepBreakdown* b) { return Waiting(*a) > Waiting(*b); });
    size_t most = (max + 1) / 2, least = max - most;
    std::vector<const StepBreakdown*> kept(ranks.begin(), ranks.begin() + static_cast<long>(most));
    kept.insert(kept.end(), ranks.end() - static_cast<long>(least), ranks.end());
    ranks = std::move(kept);
  }
  std::stable_sort(ranks.begin(), ranks.end(), [](const StepBreakdown* a, const StepBreakdown* b) {
    return a->rank < b->rank;
  });
  return ranks;
}

Intervals Clip(const Intervals& x, int64_t lo, int64_t hi) { return analysis::PartsIn(x, lo, hi); }

std::string StepName(const Job& job, const ChosenStep& c) {
  for (const RankTrace& t : job.trace.ranks)
    if (t.step_source == StepSource::kNone || t.step_source == StepSource::kWholeTrace)
      return "the whole trace (no steps found)";
  std::string s = "step " + std::to_string(c.number);
  if (c.complete > 1)
    s += " (the median of " + std::to_string(c.complete) + " complete steps)";
  else if (c.complete == 0)
    s += " (no step is complete: each holds GPU work launched before the trace began)";
  return s;
}

// Names the longest GPU op of `kind` in each segment (times relative to origin_ns), so that a
// block on the timeline says what ran there. Ops are sorted by start.
void NameLongest(const RankTrace& t, GpuOpKind kind, int64_t origin_ns,
                 std::vector<Segment>& segs) {
  constexpr size_t kMaxName = 160;
  auto by_start = [](const GpuOp& op, int64_t v) { return op.start_ns < v; };
  for (Segment& seg : segs) {
    const int64_t a = seg.start_ns + origin_ns, b = seg.end_ns + origin_ns;
    auto it = std::lower_bound(t.gpu_ops.begin(), t.gpu_ops.end(), a, by_start);
    if (it != t.gpu_ops.begin()) --it;  // one that began before the segment may run into it
    const GpuOp* best = nullptr;
    for (; it != t.gpu_ops.end() && it->start_ns < b; ++it) {
      if (it->kind != kind || it->end_ns <= a) continue;
      if (!best || it->end_ns - it->start_ns > best->end_ns - best->start_ns) best = &*it;
    }
    if (!best || best->name >= t.names.size()) continue;
    std::string name = t.names[best->name];
    if (name.size() > kMaxName) name = name.substr(0, kMaxName) + "...";
    seg.label += "; longest: " + name + " (" +
                 FormatDurationNs(static_cast<double>(best->end_ns - best->start_ns)) + ")";
  }
}

}  // namespace

std::vector<Segment> MergedSegments(const Intervals& x, int64_t min_gap_ns, int64_t origin_ns,
                                    const char* kind, const char* what) {
  std::vector<Segment> out;
  size_t i = 0;
  while (i < x.size()) {
    int64_t start = x[i].start, end = x[i].end, busy = x[i].end - x[i].start;
    size_t n = 1;
    for (++i; i < x.size() && x[i].start - end < min_gap_ns; ++i, ++n) {
      end = std::max(end, x[i].end);
      busy += x[i].end - x[i].start;
    }
    std::string label = std::string(what) + " " + FormatDurationNs(static_cast<double>(busy)) +
                        " at +" + FormatDurationNs(static_cast<double>(start - origin_ns));
    if (n > 1)
      label += " (" + std::to_string(n) + " intervals over " +
               FormatDurationNs(static_cast<double>(end - start)) + ")";
    double fraction =
        end > start ? static_cast<double>(busy) / static_cast<double>(end - start) : 1;
    out.push_back(Segment{start - origin_ns, end - origin_ns, kind, std::move(label), fraction});
  }
  return out;
}

std::optional<Timeline> StepTimelineChart(const Job& job, const analysis::TraceFacts& facts,
                                          const StepTimelineOptions& options) {
  auto chosen = ChooseStep(facts.steps);
  if (!chosen) return std::nullopt;
  std::vector<const StepBreakdown*> ranks = PickRanks(chosen->ranks, options.max_ranks);
  Timeline tl;
  tl.title = "Step timeline per rank: " + StepName(job, *chosen);
  const int resolution = std::max(1, options.resolution);
  // The drawn ranks' events, where they were freed: read again from their files, in parallel.
  std::vector<const RankTrace*> drawn;
  for (const StepBreakdown* s : ranks)
    drawn.push_back(s->trace >= 0 && static_cast<size_t>(s->trace) < job.trace.ranks.size()
                        ? &job.trace.ranks[static_cast<size_t>(s->trace)]
                        : nullptr);
  const std::vector<std::optional<RankTrace>> events = RankEvents(drawn, options.threads);
  for (size_t k = 0; k < ranks.size(); ++k) {
    const StepBreakdown* s = ranks[k];
    if (s->trace < 0 || static_cast<size_t>(s->trace) >= facts.ranks()) continue;
    const analysis::RankTimeline& rt = facts.timeline(static_cast<size_t>(s->trace));
    const int64_t lo = s->start_ns, hi = s->end_ns;
    const int64_t gap = std::max<int64_t>(1, (hi - lo) / resolution);
    Intervals compute = Clip(rt.compute, lo, hi);
    Intervals no_compute = analysis::GapsIn(compute, lo, hi);
    Intervals comm = Clip(rt.comm, lo, hi);
    Intervals idle = analysis::GapsIn(Clip(rt.busy, lo, hi), lo, hi);
    Intervals data = analysis::IntersectionOf(idle, Clip(rt.idle.data, lo, hi));  // as charged
    const std::string group = "rank " + std::to_string(s->rank);
    const RankTrace* trace = events[k] ? &*events[k] : drawn[k];  // its events, where kept

    Lane work{group + " compute", MergedSegments(compute, gap, lo, "compute", "compute kernels"),
              group};
    if (trace) NameLongest(*trace, GpuOpKind::kKernel, lo, work.segments);
    for (auto& seg : MergedSegments(analysis::IntersectionOf(Clip(rt.other, lo, hi), no_compute),
                                    gap, lo, "other", "copies/sets"))
      work.segments.push_back(std::move(seg));
    Lane talk{group + " comm",
              MergedSegments(analysis::IntersectionOf(comm, compute), gap, lo, "comm",
                             "communication overlapped with compute"),
              group};
    for (auto& seg : MergedSegments(analysis::IntersectionOf(comm, no_compute), gap, lo,
                                    "comm_exposed", "communication exposed"))
      talk.segments.push_back(std::move(seg));
    if (trace) NameLongest(*trace, GpuOpKind::kCommKernel, lo, talk.segments);
    Lane wait{group + " idle",
              MergedSegments(analysis::IntersectionOf(idle, analysis::GapsIn(data, lo, hi)), gap,
                             lo, "host_wait", "GPU idle, host"),
              group};
    for (auto& seg : MergedSegments(data, gap, lo, "data_wait", "GPU idle, data loading"))
      wait.segments.push_back(std::move(seg));
    // A lane with nothing on it still says so: the step's window defines its length.
    for (Lane* lane : {&work, &talk, &wait}) tl.lanes.push_back(std::move(*lane));
  }
  if (tl.lanes.empty()) return std::nullopt;
  tl.note = "Times from each rank's own step start (" +
            FormatDurationNs(static_cast<double>(chosen->slowest_ns)) +
            " on the slowest rank); segments closer than 1/" + std::to_string(resolution) +
            " of the step are drawn as one (hover for busy time).";
  if (ranks.size() < chosen->ranks.size())
    tl.note += " " + std::to_string(ranks.size()) + " of " + std::to_string(chosen->ranks.size()) +
               " ranks shown: those that waited most and least in this step.";
  return tl;
}

}  // namespace commdx::pipeline
