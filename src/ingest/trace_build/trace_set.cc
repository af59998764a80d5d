// The traces of one job, taken together: copies of one trace read once, earlier profiling
// windows set aside, ordered by rank, unknown ranks numbered, duplicates noted (once each, though
// the set is finished again after every file added), process groups unioned, traces that cannot
// belong to the same job or run noted (a folder holding rank 0 of one run and rank 1 of another
// makes cross-rank numbers meaningless), and ranks whose trace is missing named.
#include "ingest/trace_build/trace_set.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/text.h"

namespace commdx::ingest {

namespace {

void OrderAndNumberRanks(Job& job) {
  auto& ranks = job.trace.ranks;
  // Known ranks first by rank; traces whose rank nobody wrote keep their file order after them.
  std::stable_sort(ranks.begin(), ranks.end(), [](const RankTrace& a, const RankTrace& b) {
    bool ua = a.rank_source == "unknown", ub = b.rank_source == "unknown";
    if (ua != ub) return ub;
    return ua ? false : a.rank < b.rank;
  });
  int next = 0;
  for (const auto& r : ranks)
    if (r.rank_source != "unknown") next = std::max(next, r.rank + 1);
  for (auto& r : ranks) {
    if (r.rank_source != "unknown") continue;
    r.rank = next++;
    job.quality.Add("kineto.rank_unknown", DiagSeverity::kWarning,
                    "trace has no distributedInfo and its file name does not say the rank; "
                    "ranks were numbered in file order",
                    SourceLoc{r.file});
  }
  uint64_t seen = 0, noted = job.quality.Count("kineto.duplicate_rank");
  for (size_t i = 1; i < ranks.size(); ++i)
    if (ranks[i].rank == ranks[i - 1].rank && ++seen > noted)
      job.quality.Add("kineto.duplicate_rank", DiagSeverity::kWarning,
                      "two traces claim rank " + std::to_string(ranks[i].rank) +
                          " (first: " + ranks[i - 1].file + ")",
                      SourceLoc{ranks[i].file});
}

const ProcessGroupInfo* FindPg(const RankTrace& t, const std::string& name) {
  for (const auto& pg : t.process_groups)
    if (pg.name == name) return &pg;
  return nullptr;
}

// The kinds of collective a rank issued in a group. Point-to-point counts as one kind: in a
// pipeline one stage only sends and the next only receives, yet both are the same job.
std::set<CollectiveType> TypesIn(const RankTrace& t, const std::string& pg_name) {
  std::set<CollectiveType> types;
  for (const auto& c : t.collectives)
    if (c.pg >= 0 && t.process_groups[c.pg].name == pg_name && c.type != CollectiveType::kUnknown)
      types.insert(IsPointToPoint(c.type) ? CollectiveType::kSendRecv : c.type);
  return types;
}

size_t CountIn(const RankTrace& t, const std::string& pg_name) {
  size_t n = 0;
  for (const auto& c : t.collectives)
    if (c.pg >= 0 && t.process_groups[c.pg].name == pg_name) ++n;
  return n;
}

std::string RankList(const std::vector<int>& ranks) { return "[" + JoinInts(ranks) + "]"; }

// Why traces `a` and `b` cannot come from one run of one job, or "" when nothing says so.
// Each rule is a fact every rank of one job shares: the world size, the members of a process
// group of the same name, the kinds of collective issued in it (every member issues the same
// ones), and, with `by_time`, the time window (ranks of one run are profiled over the same
// steps; a window that ends well before the other starts is another run, or host clocks that
// disagree by that much).
std::string WhyNotOneJob(const RankTrace& a, const RankTrace& b, bool by_time = true) {
  std::string who = "rank " + std::to_string(a.rank) + " and rank " + std::to_string(b.rank);
  if (a.world_size > 0 && b.world_size > 0 && a.world_size != b.world_size)
    return who + " give different world sizes (" + std::to_string(a.world_size) + " and " +
           std::to_string(b.world_size) + ")";
  for (const auto& pa : a.process_groups) {
    const ProcessGroupInfo* pb = FindPg(b, pa.name);
    if (!pb) continue;
    if (!pa.ranks.empty() && !pb->ranks.empty() && pa.ranks != pb->ranks)
      return who + " give process group '" + pa.name + "' different members (" +
             RankList(pa.ranks) + " and " + RankList(pb->ranks) + ")";
    const size_t kMinCollectives = 4;  // fewer may be a trimmed window, not a different job
    if (CountIn(a, pa.name) < kMinCollectives || CountIn(b, pa.name) < kMinCollectives) continue;
    auto ta = TypesIn(a, pa.name), tb = TypesIn(b, pa.name);
    bool shared =
        std::any_of(ta.begin(), ta.end(), [&tb](CollectiveType t) { return tb.count(t); });
    if (!shared && !ta.empty() && !tb.empty())
      return who + " issue no collective of the same kind in process group '" + pa.name +
             "' (rank " + std::to_string(a.rank) + ": " + CollectiveTypeName(*ta.begin()) +
             ", rank " + std::to_string(b.rank) + ": " + CollectiveTypeName(*tb.begin()) + ")";
  }
  if (by_time && a.last_ns > a.first_ns && b.last_ns > b.first_ns) {
    const RankTrace& early = a.last_ns <= b.first_ns ? a : b;
    const RankTrace& late = &early == &a ? b : a;
    int64_t gap_ns = late.first_ns - early.last_ns;
    int64_t longest_ns = std::max(a.last_ns - a.first_ns, b.last_ns - b.first_ns);
    const int64_t kMinGapNs = 1'000'000'000;  // NTP-synchronised hosts agree far better than 1 s
    if (gap_ns > kMinGapNs && gap_ns > longest_ns)
      return who + " were profiled at different times: rank " + std::to_string(late.rank) +
             "'s trace starts " + FormatDurationNs(static_cast<double>(gap_ns)) + " after rank " +
             std::to_string(early.rank) +
             "'s ends (different runs, or host clocks that disagree by that much)";
  }
  return "";
}

// The worker of a file tensorboard_trace_handler named, "<worker>.<ms>.pt.trace.json[.gz]"
// (worker: "<host>_<pid>" unless the user named it); "" for other names.
std::string_view HandlerWorker(std::string_view path) {
  std::string_view name = path.substr(path.find_last_of('/') + 1);
  for (std::string_view ext : {".pt.trace.json.gz", ".pt.trace.json"})
    if (EndsWith(name, ext)) {
      name.remove_suffix(ext.size());
      size_t dot = name.find_last_of('.');
      if (dot == std::string_view::npos || dot + 1 == name.size()) return "";
      std::string_view ms = name.substr(dot + 1);
      if (!std::all_of(ms.begin(), ms.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return "";
      return name.substr(0, dot);
    }
  return "";
}

// Which process of the job wrote a trace: its rank, or (no rank written, as in a job that is
// not distributed) the worker in the handler's file name; "" when neither says.
std::string ProcessKey(const RankTrace& t) {
  if (t.rank_source != "unknown") return "rank " + std::to_string(t.rank);
  std::string_view worker = HandlerWorker(t.file);
  return worker.empty() ? "" : "worker " + std::string(worker);
}

// Two traces of one process of one job that do not overlap in time: two profiling windows.
bool TwoWindows(const RankTrace& a, const RankTrace& b) {
  if (a.last_ns > b.first_ns && b.last_ns > a.first_ns) return false;  // the same time: duplicates
  return WhyNotOneJob(a, b, /*by_time=*/false).empty();
}

std::string StepRange(const RankTrace& t) {
  if (t.step_source != StepSource::kProfilerStep || t.steps.empty()) return "";
  return ", ProfilerStep#" + std::to_string(t.steps.front().number) + "-" +
         std::to_string(t.steps.back().number);
}

// The same trace read twice (trace.json beside trace.json.gz, a copy in a subfolder): one process,
// the same span to the nanosecond and the same event counts. "" for a trace of no known process
// (never a copy).
std::string CopyKey(const RankTrace& t) {
  std::string key = ProcessKey(t);
  if (key.empty()) return key;
  for (uint64_t v :
       {static_cast<uint64_t>(t.first_ns), static_cast<uint64_t>(t.last_ns),
        static_cast<uint64_t>(t.events), static_cast<uint64_t>(t.gpu_ops.size()),
        static_cast<uint64_t>(t.HostOpCount()), static_cast<uint64_t>(t.runtime.size()),
        static_cast<uint64_t>(t.collectives.size()),
        static_cast<uint64_t>(static_cast<int64_t>(t.world_size))})
    key += '\n' + std::to_string(v);
  return key;
}

// Copies are read once: the first file (in reading order) is kept, the others are named, each
// against the first (by key: one pass, not every pair of thousands of ranks).
void DropCopies(Job& job) {
  std::vector<RankTrace>& ranks = job.trace.ranks;
  std::unordered_map<std::string, size_t> first;
  std::vector<std::pair<size_t, size_t>> copies;  // (the first, its copy)
  for (size_t j = 0; j < ranks.size(); ++j)
    if (std::string key = CopyKey(ranks[j]); !key.empty())
      if (auto [it, fresh] = first.emplace(std::move(key), j); !fresh)
        copies.emplace_back(it->second, j);
  if (copies.empty()) return;
  std::sort(copies.begin(), copies.end());  // noted by first, then copy, as always
  std::vector<bool> copy(ranks.size(), false);
  for (const auto& [i, j] : copies) {
    job.quality.Add(
        "kineto.same_trace_twice", DiagSeverity::kNote,
        "the same trace as " + ranks[i].file + " (same rank, events and times): read once",
        SourceLoc{ranks[j].file});
    copy[j] = true;
  }
  size_t kept = 0;
  for (size_t j = 0; j < ranks.size(); ++j)
    if (!copy[j]) {
      if (kept != j) ranks[kept] = std::move(ranks[j]);
      ++kept;
    }
  ranks.erase(ranks.begin() + static_cast<std::ptrdiff_t>(kept), ranks.end());
}

// torch.profiler with a schedule that repeats (tensorboard_trace_handler writes a file per
// active window and rank), or the profiler started several times in one job, leaves several
// traces per rank, each a few steps long and apart in time. Read as one set they would be
// duplicate ranks of different runs; each process's latest window is analysed (the windows of
// ranks in lock-step line up), the earlier ones are kept aside and named. Works on the whole
// pool each time, so finishing the set again after another file gives the same choice.
void PickLatestWindows(Job& job) {
  TraceSet& set = job.trace;
  for (auto& t : set.other_windows) set.ranks.push_back(std::move(t));
  set.other_windows.clear();
  job.quality.Remove("kineto.profiling_windows");
  std::vector<RankTrace>& pool = set.ranks;
  std::map<std::string, std::vector<size_t>> by_process;
  for (size_t i = 0; i < pool.size(); ++i)
    if (std::string key = ProcessKey(pool[i]); !key.empty()) by_process[key].push_back(i);
  std::vector<bool> aside(pool.size(), false);
  std::string shown;  // the process the note names
  for (const auto& [key, traces] : by_process)
    for (size_t i : traces)
      for (size_t j : traces)
        if (!aside[i] && pool[i].first_ns < pool[j].first_ns && TwoWindows(pool[i], pool[j])) {
          aside[i] = true;
          if (shown.empty()) shown = key;
        }
  if (shown.empty()) return;
  std::vector<RankTrace> kept;
  std::string names;
  size_t n_aside = 0;
  for (size_t i = 0; i < pool.size(); ++i) {
    if (!aside[i]) {
      kept.push_back(std::move(pool[i]));
      continue;
    }
    if (++n_aside <= 3) names += (n_aside > 1 ? ", " : "") + pool[i].file;
    set.other_windows.push_back(std::move(pool[i]));
  }
  pool = std::move(kept);
  // The process's latest window is never set aside (nothing starts after it).
  const RankTrace& latest = *std::find_if(
      pool.begin(), pool.end(), [&](const RankTrace& t) { return ProcessKey(t) == shown; });
  if (n_aside > 3) names += " and " + std::to_string(n_aside - 3) + " more";
  job.quality.Add("kineto.profiling_windows", DiagSeverity::kNote,
                  "several profiling windows of one job (traces of one process apart in time, "
                  "as torch.profiler writes with a repeating schedule): each process's latest "
                  "window is analysed (" +
                      latest.file + StepRange(latest) + "); " + std::to_string(n_aside) +
                      " earlier trace(s) were read and set aside: " + names +
                      ". To analyse another window, pass its files alone",
                  SourceLoc{latest.file});
}

void NoteMixedJobs(Job& job) {
  const auto& ranks = job.trace.ranks;
  // Every trace against the first one: enough to find a stranger, linear in the rank count.
  // The set is finished again after each file the registry entry adds: count each stranger once.
  uint64_t seen = 0, noted = job.quality.Count("kineto.mixed_jobs");
  for (size_t i = 1; i < ranks.size(); ++i) {
    std::string why = WhyNotOneJob(ranks[0], ranks[i]);
    if (why.empty() || ++seen <= noted) continue;
    job.quality.Add("kineto.mixed_jobs", DiagSeverity::kWarning,
                    "traces of different jobs or runs are read as one job: " + why +
                        " (first: " + ranks[0].file +
                        "); cross-rank numbers compare unrelated work: read one job's traces "
                        "at a time",
                    SourceLoc{ranks[i].file});
  }
}

void UnionProcessGroups(Job& job) {
  auto& pgs = job.trace.process_groups;
  pgs.clear();
  std::unordered_map<std::string, size_t> by_name;
  for (const auto& r : job.trace.ranks)
    for (const auto& pg : r.process_groups) {
      auto [at, fresh] = by_name.emplace(pg.name, pgs.size());
      if (fresh) {
        pgs.push_back(pg);
        continue;
      }
      ProcessGroupInfo& it = pgs[at->second];
      if (it.ranks.empty()) it.ranks = pg.ranks;
      if (it.desc.empty()) it.desc = pg.desc;
      it.size = std::max(it.size, pg.size);
    }
}

// The job's size by every fact that says it, and where that fact was read.
std::pair<int, std::string> WorldSize(const Job& job) {
  int world = 0;
  std::string from;
  auto take = [&world, &from](int n, const std::string& what) {
    if (n > world) world = n, from = what;
  };
  for (const auto& r : job.trace.ranks) {
    take(r.world_size, "distributedInfo.world_size");
    for (const auto& c : r.collectives) take(c.group_size, "the collectives' group size");
  }
  for (const auto& pg : job.trace.process_groups) {
    take(pg.size, "process group '" + pg.name + "'");
    for (int m : pg.ranks) take(m + 1, "process group '" + pg.name + "' members");
  }
  return {world, from};
}

// One rank's trace of many is the usual upload; it is read, and what needs every rank is not
// claimed. The note is recomputed whenever the set grows (a rank read later is no longer missing).
void NoteMissingRanks(Job& job) {
  TraceSet& set = job.trace;
  auto [world, from] = WorldSize(job);
  set.world_size = world;
  set.missing_ranks.clear();
  job.quality.Remove("kineto.missing_ranks");
  if (set.ranks.empty() || world <= 0) return;
  std::set<int> present, expected;
  for (const auto& r : set.ranks) present.insert(r.rank);
  for (int i = 0; i < world; ++i) expected.insert(i);
  for (const auto& pg : set.process_groups) expected.insert(pg.ranks.begin(), pg.ranks.end());
  for (int r : expected)
    if (!present.count(r)) set.missing_ranks.push_back(r);
  if (!set.incomplete()) return;
  const auto& miss = set.missing_ranks;
  std::string which = miss.empty()        ? "which ones is not known"
                      : miss.size() == 1  ? "missing: rank " + std::to_string(miss[0])
                      : miss.size() <= 16 ? "missing: ranks " + RankList(miss)
                                          : "missing: " + std::to_string(miss.size()) + " ranks";
  job.quality.Add("kineto.missing_ranks", DiagSeverity::kWarning,
                  "traces of " + std::to_string(set.ranks.size()) + " of " + std::to_string(world) +
                      " ranks were read (" + which + "; job size from " + from +
                      "): NCCL kernel times include waiting for ranks not seen, so the wait vs "
                      "transfer split, who arrives late and transfer-only bandwidth are not "
                      "measured; pass every rank's trace for them",
                  SourceLoc{set.ranks[0].file});
}

// Each file cut short notes kineto.trace_cut_short once, and the table keeps the first file's
// message. When every trace was cut (the whole job killed while the profiler wrote), the note
// names every file instead.
void NoteAllCut(Job& job) {
  const TraceSet& set = job.trace;
  const size_t traces = set.ranks.size() + set.other_windows.size();
  const uint64_t cut = job.quality.Count("kineto.trace_cut_short");
  if (traces < 2 || cut < traces) return;
  std::string files;
  for (const auto* list : {&set.ranks, &set.other_windows})
    for (const auto& t : *list) files += (files.empty() ? "" : ", ") + t.file;
  std::string first;
  for (const auto& e : job.quality.entries())
    if (e.id == "kineto.trace_cut_short") first = e.message;
  const std::string marker = "every one of the ";
  if (first.rfind(marker, 0) == 0) return;  // noted already
  job.quality.Remove("kineto.trace_cut_short");
  const std::string message = marker + std::to_string(traces) +
                              " traces ends before the trace does (the job killed, hung or out "
                              "of memory while the profiler wrote?): " +
                              files + ". Each is read up to its cut; first: " + first;
  for (const auto* list : {&set.ranks, &set.other_windows})
    for (const auto& t : *list)
      job.quality.Add("kineto.trace_cut_short", DiagSeverity::kWarning, message, SourceLoc{t.file});
}

}  // namespace

void FinishTraceSet(Job& job) {
  DropCopies(job);
  PickLatestWindows(job);
  OrderAndNumberRanks(job);
  NoteMixedJobs(job);
  UnionProcessGroups(job);
  NoteMissingRanks(job);
  NoteAllCut(job);
}

}  // namespace commdx::ingest
