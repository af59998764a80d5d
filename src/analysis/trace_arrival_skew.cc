#include "analysis/trace_arrival_skew.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "analysis/catalogue.h"
#include "base/str_format.h"

namespace commdx::analysis {

namespace {

constexpr int64_t kSignificantWaitNs = 20'000;  // below this, arrival order is noise
constexpr int64_t kMinCostNs = 500'000;         // a finding needs 0.5 ms per step...
constexpr double kMinStepShare = 0.05;          // ...and 5% of the step

const Step* WindowAt(const RankTrace& t, int64_t x) {
  for (const Step& s : t.steps)
    if (x >= s.start_ns && x < s.end_ns) return &s;
  return nullptr;
}

struct Spent {
  int64_t compute = 0, comm = 0, other = 0, data = 0, sync = 0, cpu = 0, queued = 0;
};

Spent SpentIn(const TraceFacts& f, int trace, int64_t a, int64_t b) {
  Spent s;
  if (b <= a) return s;
  const RankTimeline& tl = f.timeline(trace);
  StepBreakdown m = MeasureWindow(tl, f.cross.wait[trace], a, b);
  s.compute = m.compute_ns + m.comm_overlapped_ns;
  s.comm = m.comm_exposed_ns;
  s.other = m.other_gpu_ns;
  s.data = m.idle_data_ns;
  // Host time blocked in synchronising calls while the GPU had nothing to do.
  Intervals idle = GapsIn(tl.busy, a, b);
  // Idle whose next work was already queued is not the CPU's: the GPU waited for something the
  // trace does not record (trace.queued_idle).
  s.queued = m.idle_queued_ns;
  const int64_t host = m.idle_host_ns - s.queued;
  s.sync = std::min(host, OverlapIn(idle, tl.host_sync, a, b));
  s.cpu = host - s.sync;
  return s;
}

// What the late rank did more of than the earliest one, from a common start to its arrival.
void Explain(const TraceSet& set, const TraceFacts& f, const MatchedCollective& m, LateStep& out) {
  const MatchedPart* late = nullptr;
  const MatchedPart* early = nullptr;
  for (const MatchedPart& p : m.parts) {
    if (p.trace == m.late) late = &p;
    if (!early || p.start_ns < early->start_ns) early = &p;
  }
  if (!late || !early || late == early) return;
  auto local = [&f](const MatchedPart& p) { return p.start_ns - f.cross.offset_ns[p.trace]; };
  const Step* wl = WindowAt(set.ranks[late->trace], local(*late));
  const Step* we = WindowAt(set.ranks[early->trace], local(*early));
  int64_t start = std::min(wl ? wl->start_ns + f.cross.offset_ns[late->trace] : late->start_ns,
                           we ? we->start_ns + f.cross.offset_ns[early->trace] : early->start_ns);
  Spent sl = SpentIn(f, late->trace, start - f.cross.offset_ns[late->trace], local(*late));
  Spent se = SpentIn(f, early->trace, start - f.cross.offset_ns[early->trace], local(*early));
  struct Cat {
    const char* key;
    const char* text;
    int64_t extra;
  };
  Cat cats[] = {{"compute", "GPU compute", sl.compute - se.compute},
                {"data", "data loading (GPU idle)", sl.data - se.data},
                {"sync", "host synchronisation (GPU idle)", sl.sync - se.sync},
                {"cpu", "CPU work (GPU idle, waiting for launches)", sl.cpu - se.cpu},
                {"queued", "GPU idle with work queued (not for the CPU)", sl.queued - se.queued},
                {"comm", "other communication", sl.comm - se.comm},
                {"other", "copies/sets", sl.other - se.other}};
  const Cat* best = &cats[0];
  for (const Cat& c : cats)
    if (c.extra > best->extra) best = &c;
  std::string buf = StrFormat("%s (+%.2f ms vs rank %d)", best->text,
                              static_cast<double>(best->extra) / 1e6, set.ranks[early->trace].rank);
  out.doing = buf;
  out.doing_key = best->key;
  out.extra_ns = best->extra;
  out.worst_wait_ns = m.max_wait_ns;
}

bool IsPartial(const TraceFacts& f, int trace, int64_t step) {
  for (const StepBreakdown& s : f.steps)
    if (s.trace == trace && s.step == step) return s.partial;
  return false;
}

}  // namespace

std::vector<LateStep> LateRanksPerStep(const TraceSet& set, const TraceFacts& f) {
  struct Acc {
    int64_t caused = 0;
    int instances = 0;
    const MatchedCollective* worst = nullptr;
  };
  std::map<int64_t, std::map<int, Acc>> by_step;
  for (const MatchedCollective& m : f.cross.matches) {
    if (m.max_wait_ns < kSignificantWaitNs || m.late < 0) continue;
    Acc& a = by_step[m.step][m.late];
    a.caused += m.max_wait_ns;
    ++a.instances;
    if (!a.worst || m.max_wait_ns > a.worst->max_wait_ns) a.worst = &m;
  }
  std::vector<LateStep> out;
  for (const auto& [step, per_rank] : by_step) {
    auto best = std::max_element(
        per_rank.begin(), per_rank.end(),
        [](const auto& x, const auto& y) { return x.second.caused < y.second.caused; });
    LateStep l;
    l.step = step;
    l.late_trace = best->first;
    l.late_rank = set.ranks[best->first].rank;
    l.caused_wait_ns = best->second.caused;
    l.instances = best->second.instances;
    Explain(set, f, *best->second.worst, l);
    out.push_back(std::move(l));
  }
  return out;
}

namespace {

// The late rank's extra time must account for at least half of the waiting it caused in the
// step before it is named as the reason.
constexpr double kMinExplained = 0.5;

}  // namespace

std::vector<LateStep> ExplainedLateRanks(const TraceSet& set, const TraceFacts& f) {
  std::vector<LateStep> out = LateRanksPerStep(set, f);
  for (LateStep& l : out) {
    if (l.doing_key.empty() || l.extra_ns >= kMinExplained * static_cast<double>(l.worst_wait_ns))
      continue;
    std::string buf = StrFormat("; explains only %.2f of the %.2f ms the others waited",
                                static_cast<double>(l.extra_ns) / 1e6,
                                static_cast<double>(l.worst_wait_ns) / 1e6);
    l.doing += buf;
    l.doing_key = "unclear";
  }
  return out;
}

std::vector<Finding> FindArrivalSkew(const AnalysisInput& input, const Options&) {
  const std::vector<LateStep>& late = input.late_ranks();
  if (late.empty()) return {};
  const TraceSet& set = input.job().trace;
  const TraceFacts& f = input.trace_facts();
  std::map<int64_t, bool> steps;
  int64_t all_wait = 0;
  std::map<int, int64_t> caused;  // by trace
  std::map<int, int> last_at;
  for (const MatchedCollective& m : f.cross.matches) {
    steps[m.step] = true;
    if (m.max_wait_ns < kSignificantWaitNs || m.late < 0) continue;
    caused[m.late] += m.max_wait_ns;
    ++last_at[m.late];
    all_wait += m.max_wait_ns;
  }
  const double nsteps = static_cast<double>(std::max<size_t>(1, steps.size()));
  const double step_ns = MeanStepNs(f);
  std::vector<Finding> out;
  for (const auto& [trace, total] : caused) {
    // What the waiting costs: the others' waiting that no compute hides (their exposed wait),
    // in proportion to the waits this rank caused. Waiting under compute costs nothing.
    int64_t exposed_wait = 0;
    for (size_t i = 0; i < f.rank_means.size(); ++i)
      if (static_cast<int>(i) != trace)
        exposed_wait = std::max(exposed_wait, f.rank_means[i].comm_exposed_wait_ns);
    const double share = all_wait ? static_cast<double>(total) / static_cast<double>(all_wait) : 0;
    double per_step = share * static_cast<double>(exposed_wait);
    const double waited = static_cast<double>(total) / nsteps;
    if (per_step < kMinCostNs || (step_ns > 0 && per_step < kMinStepShare * step_ns)) continue;
    const RankTrace& t = set.ranks[trace];
    // The reason is the category named in the steps with the most waiting (votes weighted by
    // the waiting each step caused). Steps holding work from before the trace began do not vote
    // unless there is nothing else.
    std::map<std::string, int64_t> doing_votes;
    bool any_complete = false;
    for (const LateStep& l : late)
      any_complete |= l.late_trace == trace && !IsPartial(f, trace, l.step);
    for (const LateStep& l : late)
      if (l.late_trace == trace && !(any_complete && IsPartial(f, trace, l.step)))
        doing_votes[l.doing_key] += l.caused_wait_ns;
    std::string doing;
    for (const auto& [key, weight] : doing_votes)
      if (doing.empty() || weight > doing_votes[doing]) doing = key;
    std::string doing_text;
    for (const LateStep& l : late)
      if (l.late_trace == trace && l.doing_key == doing) doing_text = l.doing;
    Finding x = NewFinding("trace.arrival_skew");
    x.severity = step_ns > 0 && per_step > 0.25 * step_ns ? Severity::kError : Severity::kWarning;
    // A rank that is late only because its CPU is slower while every rank is CPU-bound (small
    // model, profiler overhead) is a symptom of trace.launch_bound, not a straggler of its own.
    const bool cpu_only = doing == "cpu";
    const bool unclear = doing == "unclear";
    if (cpu_only || unclear) x.severity = Severity::kInfo;
    x.rank = t.rank;
    x.title =
        "Rank " + std::to_string(t.rank) + " arrives late at collectives: the others wait for it";
    std::string buf = StrFormat(
        "Rank %d arrived last at %d collectives that made others wait; the others waited "
        "%.2f ms per step, %.2f ms of it with nothing else to run (%.0f%% of a %.2f ms "
        "step). Before arriving it spent more time than the earliest rank on: %s.",
        t.rank, last_at[trace], waited / 1e6, per_step / 1e6,
        step_ns > 0 ? 100.0 * per_step / step_ns : 0, step_ns / 1e6, doing_text.c_str());
    x.detail = buf;
    x.metrics = {{"wait_per_step", waited, Unit::kNs},
                 {"exposed_wait_per_step", per_step, Unit::kNs},
                 {"step_time", step_ns, Unit::kNs},
                 {"late_at_collectives", static_cast<double>(last_at[trace]), Unit::kCount},
                 {"share_of_all_waiting", all_wait ? static_cast<double>(total) / all_wait : 0,
                  Unit::kRatio}};
    for (const LateStep& l : late)
      if (l.late_trace == trace)
        x.refs.push_back({SourceLoc{t.file}, (l.step >= 0 ? "step " + std::to_string(l.step)
                                                            : std::string("outside the steps")) +
                                                 ": others waited " +
                                                 std::to_string(l.caused_wait_ns / 1000) +
                                                 " µs; rank was busy with " + l.doing});
    if (doing == "data")
      x.fix = "Rank " + std::to_string(t.rank) +
              " is slow to load data: see trace.data_stall (more "
              "DataLoader workers, pin_memory, prefetching, faster storage).";
    else if (doing == "compute")
      x.fix =
          "Rank " + std::to_string(t.rank) +
          " has more GPU work per step than the others: "
          "balance the work (uneven batches or sequence lengths, extra per-rank work), and check "
          "its GPU for throttling (commdx doctor).";
    else if (doing == "queued")
      x.fix = "Rank " + std::to_string(t.rank) +
              "'s GPU waits with its work already queued (see trace.queued_idle): check that no "
              "other process shares its GPU, and record it with Nsight Systems to see what runs.";
    else if (doing == "sync")
      x.fix = "Remove the host synchronisation on rank " + std::to_string(t.rank) +
              " (see trace.host_sync).";
    else
      x.fix =
          "Find what rank " + std::to_string(t.rank) +
          "'s CPU does before the collective (logging, checkpointing, CPU pinning, Python work) "
          "and move it off the critical path.";
    x.confidence =
        all_wait ? std::min(0.95, 0.5 + 0.5 * static_cast<double>(total) / all_wait) : 0.5;
    if (unclear) {
      x.confidence = std::min(x.confidence, 0.4);
      x.detail += " What it did before arriving explains less than half of the waiting.";
    }
    if (cpu_only) {
      x.confidence = std::min(x.confidence, 0.5);
      x.detail +=
          " Its extra time is CPU work with the GPU idle: when all ranks are CPU-bound the "
          "slowest CPU sets the pace (see trace.launch_bound).";
    }
    x.saving_ns_per_step = per_step;
    out.push_back(std::move(x));
  }
  return out;
}

}  // namespace commdx::analysis
