// hang.desync and hang.rank_behind from the watchdog timeout lines of several ranks of one
// process group. Each rank's watchdog reports the first of its collectives that did not finish,
// numbered by the group's SeqNum (the order the rank issued them), so across the ranks of a group:
//  - the same SeqNum with another OpType or NumelIn: the ranks issued different collectives at
//    that point (hang.desync), each waiting for the others to join its own;
//  - a lower SeqNum on one rank: the others finished that collective and wait in a later one it
//    has not reached (hang.rank_behind).
// The same SeqNum with the same collective everywhere is the ordinary hang: nothing here.
// A line names its group in newer PyTorch ("[PG ID 0 PG GUID 0(default_pg) Rank 3]"), else the
// rank's work status line for the same work may; lines whose group is unknown are matched by
// the SeqNum alone, with a lower confidence.
#include "analysis/hang_watchdog_skew.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "analysis/catalogue.h"
#include "analysis/hang_flight_util.h"
#include "base/str_format.h"

namespace commdx::analysis {

namespace {

// A gap this large between two lines whose group is not known says they belong to different
// groups: ranks of one group cannot drift apart by more than a collective or two, since the one
// ahead waits in the first collective the other has not joined.
constexpr int64_t kMaxUnknownGroupGap = 2;

struct Timed {
  const WatchdogTimeout* t = nullptr;
  const WatchdogStatus* status = nullptr;  // the rank's work status for the same work
  std::string group;                       // "" when neither line names it
};

std::string GroupKey(const std::string& guid, const std::string& id) {
  return !guid.empty() ? "GUID " + guid : !id.empty() ? "ID " + id : std::string();
}

// One line per rank and group: the earliest work that rank timed out in.
std::vector<Timed> Collect(const Job& job) {
  // The status lines by (rank, failed work), in log order: one lookup per timeout, linear in
  // the lines of a job of thousands of ranks.
  std::map<std::pair<int, int64_t>, std::vector<const WatchdogStatus*>> statuses;
  for (const auto& s : job.job_log.statuses) statuses[{s.rank, s.failed_seq}].push_back(&s);
  std::map<std::pair<int, std::string>, Timed> first;
  for (const auto& t : job.job_log.timeouts) {
    if (t.seq < 0 || t.rank < 0 || t.op.empty()) continue;
    Timed x{&t, nullptr, GroupKey(t.pg_guid, t.pg)};
    if (auto it = statuses.find({t.rank, t.seq}); it != statuses.end())
      for (const WatchdogStatus* s : it->second)
        if (x.group.empty() || GroupKey(s->pg_guid, s->pg) == x.group) {
          x.status = s;
          if (x.group.empty()) x.group = GroupKey(s->pg_guid, s->pg);
          break;
        }
    auto [it, added] = first.emplace(std::make_pair(t.rank, x.group), x);
    if (!added && t.seq < it->second.t->seq) it->second = x;
  }
  std::vector<Timed> out;
  for (auto& [key, x] : first) out.push_back(x);
  return out;
}

// The lines of each group: those naming it, and those naming none when only one group is named
// (with several, a line without a group cannot be placed). `guessed`: some were placed so.
struct Group {
  std::string name;
  std::vector<const Timed*> lines;
  bool guessed = false;
};

std::vector<Group> Groups(const std::vector<Timed>& all) {
  std::set<std::string> named;
  for (const auto& x : all)
    if (!x.group.empty()) named.insert(x.group);
  if (named.empty()) named.insert("");
  std::vector<Group> out;
  for (const std::string& g : named) {
    Group grp{g, {}, false};
    std::map<int, const Timed*> by_rank;  // a rank once: its line naming the group, else its own
    for (const auto& x : all)
      if (x.group == g || (x.group.empty() && named.size() == 1)) {
        const Timed*& kept = by_rank[x.t->rank];
        if (!kept || (kept->group.empty() && !x.group.empty())) kept = &x;
      }
    for (const auto& [rank, x] : by_rank) {
      grp.lines.push_back(x);
      grp.guessed = grp.guessed || x->group.empty();
    }
    out.push_back(std::move(grp));
  }
  return out;
}

// Whether NumelIn must match across ranks: not for all-to-all (uneven splits), scatter (only the
// root holds the input) or point-to-point work.
bool SizeMustMatch(const std::string& op) {
  for (const char* v : {"ALLTOALL", "SCATTER", "SEND", "RECV"})
    if (op.find(v) != std::string::npos) return false;
  return true;
}

std::string Call(const WatchdogTimeout& t, bool with_size) {
  if (!with_size || t.numel_in < 0) return t.op;
  return StrFormat("%s of %lld element%s", t.op.c_str(), static_cast<long long>(t.numel_in),
                   t.numel_in == 1 ? "" : "s");
}

std::string Capitalized(std::string s) {
  if (!s.empty()) s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
  return s;
}

std::string Where(const Group& g) {
  if (g.name.empty()) return "";
  return " of process group " + g.name.substr(g.name.find(' ') + 1);
}

std::string UnknownGroupNote(const Group& g) {
  return g.guessed ? " Some of these lines do not name their process group; they are matched by "
                     "the sequence number alone, and a collective of another group that has the "
                     "same number would look the same."
                   : "";
}

void AddRefs(Finding& f, const std::vector<const Timed*>& lines) {
  for (const Timed* x : lines) {
    if (f.refs.size() >= 6) break;
    f.refs.push_back({x->t->loc, x->t->line});
    if (x->status) f.refs.push_back({x->status->loc, x->status->line});
  }
}

void FindDesync(const Group& g, std::vector<Finding>& out) {
  std::map<int64_t, std::vector<const Timed*>> by_seq;
  for (const Timed* x : g.lines) by_seq[x->t->seq].push_back(x);
  for (const auto& [seq, lines] : by_seq) {
    bool sized = true;
    for (const Timed* x : lines) sized = sized && x->t->numel_in >= 0 && SizeMustMatch(x->t->op);
    std::map<std::string, std::vector<const Timed*>> by_call;
    for (const Timed* x : lines) by_call[Call(*x->t, sized)].push_back(x);
    if (by_call.size() < 2) continue;  // the ordinary hang: one collective everywhere
    std::vector<std::pair<std::string, std::vector<const Timed*>>> calls(by_call.begin(),
                                                                           by_call.end());
    std::stable_sort(calls.begin(), calls.end(), [](const auto& a, const auto& b) {
      return a.second.size() < b.second.size();
    });
    std::string groups;
    std::vector<const Timed*> shown;
    for (const auto& [call, xs] : calls) {
      std::vector<int> ranks;
      for (const Timed* x : xs) ranks.push_back(x->t->rank);
      groups += (groups.empty() ? "" : "; ") + RanksPhrase(ranks) + ": " + call;
      shown.push_back(xs.front());
    }
    Finding f = NewFinding("hang.desync");
    f.confidence = g.guessed ? 0.6 : 0.9;
    if (calls.front().second.size() == 1 && calls.back().second.size() > 1)
      f.rank = calls.front().second.front()->t->rank;
    f.title = StrFormat("Ranks timed out in different collectives at #%lld%s (%s)",
                        static_cast<long long>(seq), Where(g).c_str(), groups.c_str());
    f.detail =
        "The watchdog numbers a process group's collectives in the order each rank issued them, "
        "and at every number all ranks must issue the same collective with the same size. Here "
        "the work each rank timed out in carries the same number but is another collective (" +
        groups +
        "): the ranks are out of step, each waiting for the others to join its own collective "
        "until the timeout." +
        UnknownGroupNote(g);
    f.fix =
        "Make every rank issue the same collectives in the same order with the same sizes: look "
        "for a step only some ranks run (evaluation, logging or checkpointing at the end of an "
        "epoch), ranks that skip a step, or tensors whose size depends on the rank's data. "
        "TORCH_DISTRIBUTED_DEBUG=DETAIL checks every collective across the ranks and stops at "
        "the first that differs.";
    f.metrics.push_back({"seq", static_cast<double>(seq), Unit::kNone});
    f.metrics.push_back({"ranks", static_cast<double>(lines.size()), Unit::kRanks});
    AddRefs(f, shown);
    out.push_back(std::move(f));
  }
}

void FindBehindBySeq(const Group& g, std::vector<Finding>& out) {
  if (g.lines.size() < 2) return;
  auto [lo_it, hi_it] = std::minmax_element(
      g.lines.begin(), g.lines.end(),
      [](const Timed* a, const Timed* b) { return a->t->seq < b->t->seq; });
  const int64_t lo = (*lo_it)->t->seq, hi = (*hi_it)->t->seq;
  if (lo == hi || (g.guessed && hi - lo > kMaxUnknownGroupGap)) return;
  std::vector<const Timed*> behind, ahead;
  for (const Timed* x : g.lines) {
    if (x->t->seq == lo) behind.push_back(x);
    if (x->t->seq == hi) ahead.push_back(x);
  }
  std::vector<int> behind_ranks, ahead_ranks;
  bool never_issued = true;  // every rank behind says it never enqueued the later work
  for (const Timed* x : behind) {
    behind_ranks.push_back(x->t->rank);
    never_issued = never_issued && x->status && x->status->last_enqueued >= 0 &&
                   x->status->last_enqueued < hi;
  }
  for (const Timed* x : ahead) ahead_ranks.push_back(x->t->rank);
  const WatchdogTimeout& b = *behind.front()->t;
  const WatchdogTimeout& a = *ahead.front()->t;
  const std::string who = RanksPhrase(behind_ranks), others = RanksPhrase(ahead_ranks);
  Finding f = NewFinding("hang.rank_behind");
  if (behind_ranks.size() == 1) f.rank = behind_ranks.front();
  f.confidence = 0.8 - (never_issued ? 0.0 : 0.1) - (g.guessed ? 0.2 : 0.0);
  f.title = StrFormat("%s%s is behind: it timed out in #%lld (%s) while %s had finished it and "
                      "waited in #%lld (%s)%s",
                      Capitalized(who).c_str(), Where(g).c_str(), static_cast<long long>(lo),
                      Call(b, true).c_str(), others.c_str(), static_cast<long long>(hi),
                      Call(a, true).c_str(),
                      never_issued ? StrFormat(", which %s never issued", who.c_str()).c_str()
                                   : "");
  f.detail = StrFormat(
      "Each rank's watchdog reports the first of its collectives that did not finish. %s's is "
      "#%lld, so its earlier ones finished; %s's is #%lld%s. Either %s stopped issuing "
      "collectives after #%lld, or the ranks' #%lld differed (a smaller collective on one rank "
      "can finish against a larger one on another, which then never does).",
      Capitalized(others).c_str(), static_cast<long long>(hi), who.c_str(), static_cast<long long>(lo),
      never_issued ? StrFormat(" and its work status names #%lld as the last it enqueued",
                               static_cast<long long>(behind.front()->status->last_enqueued))
                         .c_str()
                   : "",
      who.c_str(), static_cast<long long>(lo), static_cast<long long>(lo));
  if (a.numel_in == 1)
    f.detail +=
        " The collective the others wait in reduces one element: usually a scalar the training "
        "loop syncs (a loss or metric average, a NaN/overflow or early-stop flag) on a path the "
        "ranks disagree on.";
  f.detail += UnknownGroupNote(g);
  f.fix = StrFormat(
      "Find what %s did instead of #%lld: its traceback or last lines, a rank-dependent branch, "
      "an exception swallowed, a data wait. TORCH_DISTRIBUTED_DEBUG=DETAIL compares every "
      "collective across the ranks; Flight Recorder dumps (TORCH_NCCL_TRACE_BUFFER_SIZE=2000, "
      "TORCH_NCCL_DUMP_ON_TIMEOUT=1) give each rank's last collectives with Python frames.",
      who.c_str(), static_cast<long long>(hi));
  f.metrics.push_back({"seq", static_cast<double>(lo), Unit::kNone});
  f.metrics.push_back({"others_seq", static_cast<double>(hi), Unit::kCount});
  AddRefs(f, {behind.front(), ahead.front()});
  out.push_back(std::move(f));
}

}  // namespace

std::vector<Finding> FindTimeoutSkew(const Job& job) {
  std::vector<Finding> out;
  std::vector<Timed> all = Collect(job);
  for (const Group& g : Groups(all)) {
    FindDesync(g, out);
    FindBehindBySeq(g, out);
  }
  return out;
}

}  // namespace commdx::analysis
