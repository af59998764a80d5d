// ras.dead_rank, ras.missing_rank and ras.mismatch from NCCL RAS reports (ncclras, text or JSON).
// A rank whose process RAS considers dead (unreachable over the RAS network for ~60 s) or that
// did not answer (missing communicator data: ~5 s without an answer) is named once per process
// with every communicator it is missing from; dead outranks missing when several reports of the
// job are given (snapshots taken one after another). Ranks of a communicator that launched
// different numbers of collectives (RAS's MISMATCH, or the JSON's collective_counts) name the rank
// that launched fewest: it is behind. Monitor-mode events join the same processes (by host and
// pid); a process declared dead later, and only by monitors that never saw the first one die, is
// most likely the view of the process that stalled (it declares its peers dead once it resumes):
// a warning beside the first death, not a second root cause. docs/findings/ras.md.
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "analysis/catalogue.h"
#include "analysis/ras_analyzers.h"
#include "base/str_format.h"
#include "base/text.h"

namespace commdx::analysis {

namespace {

constexpr size_t kEventsShown = 6;  // monitor events named in a finding

struct Absent {
  RasRank rank;
  bool dead = false;
  std::vector<std::string> comms;
  // Where it was seen, and what the line says there ("": a STATUS report's missing rank).
  std::vector<std::pair<SourceLoc, std::string>> where;
  size_t reports = 0;
  std::vector<std::string> events;  // monitor mode: "17:50:25 PEER_UNRESPONSIVE (...)", the first
  size_t more_events = 0;           // kEventsShown in order, and how many followed
  bool recovered = false;           // a PEER_RECOVERED after the process was lost
  int64_t first_dead_ns = -1;       // monitor: when its first PEER_DEAD / PEER_TIMEOUT_DEAD was
  std::vector<std::string> dead_in;  // monitor: the files (streams) that declared it dead
  // Declared dead after another process and only by streams that never declared that one dead.
  std::string stalled_view_of;  // Who() of the process that was declared dead first
  std::string stalled_gap;      // how much later, "31 s"
};

std::string Who(const RasRank& r) {
  if (r.rank < 0 && r.pid <= 0) return "The process at " + r.host;  // an address only
  std::string who =
      r.rank >= 0 ? StrFormat("Rank %d (pid %lld on %s", r.rank, static_cast<long long>(r.pid),
                              r.host.c_str())
                  : StrFormat("Process %lld (on %s", static_cast<long long>(r.pid), r.host.c_str());
  if (r.gpu >= 0) who += StrFormat(", GPU %d", r.gpu);
  return who + ")";
}

Finding AbsentFinding(const Absent& a) {
  Finding f = a.dead ? NewFinding("ras.dead_rank") : NewFinding("ras.missing_rank");
  if (a.rank.rank >= 0) f.rank = a.rank.rank;
  std::string comms;
  for (size_t i = 0; i < a.comms.size() && i < 4; ++i)
    comms += (i ? ", " : "") + (a.comms[i].empty() ? std::string("?") : a.comms[i]);
  if (a.comms.size() > 4) comms += StrFormat(" and %zu more", a.comms.size() - 4);
  std::string who = Who(a.rank);
  if (a.dead) {
    f.title = who + " is considered dead by NCCL's RAS" +
              (comms.empty() ? "" : ": missing from communicator " + comms);
    f.detail =
        "RAS could not reach this process over its network for longer than its dead "
        "timeout (about 60 s by default, times NCCL_RAS_TIMEOUT_FACTOR): it crashed, "
        "was stopped (SIGSTOP, a debugger), its host went down, or the network between "
        "the hosts did. The other ranks of its communicators cannot finish a collective "
        "without it: a job that hangs or times out now waits for this process.";
    f.fix =
        "Look at this process first: is it alive (ps, its exit status, the node's kernel log "
        "for an OOM kill or an Xid), stopped, or cut off (its host's network)? Restarting "
        "the job without that node is the way out; the other ranks are fallout.";
  } else {
    f.title = who + " does not answer NCCL's RAS: its data for communicator " +
              (comms.empty() ? std::string("?") : comms) + " is missing";
    f.detail =
        "The process did not answer RAS's status query in time (5 s per leg by "
        "default). It is not (yet) considered dead: it may be stopped, busy in the host "
        "outside NCCL, or slow to reach; a later query after ~60 s says dead or not.";
    f.fix =
        "Query again (ncclras) after a minute; meanwhile look at what the process does "
        "(py-spy dump --pid, its state in ps: T = stopped).";
  }
  if (!a.events.empty()) {
    f.detail += " RAS monitor:";
    for (size_t i = 0; i < a.events.size(); ++i) f.detail += (i ? "; " : " ") + a.events[i];
    if (a.more_events > 0) f.detail += StrFormat("; and %zu more", a.more_events);
    f.detail += ".";
    if (a.recovered)
      f.detail +=
          " It answered again afterwards (PEER_RECOVERED): the process was stopped or "
          "cut off, not crashed; RAS keeps a process it declared dead as dead.";
  }
  if (a.reports > 0) f.detail += StrFormat(" Seen in %zu RAS report(s).", a.reports);
  if (!a.stalled_view_of.empty()) {
    f.severity = Severity::kWarning;
    f.title += ", " + a.stalled_gap + " after " + a.stalled_view_of +
               ", and only by monitors that never saw that one die";
    f.detail +=
        " A process that stalled (stopped, swapped out, a long host-side pause) long enough to "
        "be declared dead finds, once it resumes, that the peers which declared it dead refuse "
        "its reconnects, and declares them dead in turn (its NCCL log: 'RAS handling connInitAck "
        "... (nack 1)', then 'RAS declaring peer ... as DEAD'). This death was declared " +
        a.stalled_gap + " after " + a.stalled_view_of +
        "'s, and by none of the monitors that saw that one die: most likely the stalled "
        "process's view, not a second failure. The job's other evidence (this process's log "
        "going on after that time, a STATUS report from it) says which.";
    f.fix = "Look at " + a.stalled_view_of +
            " first; check that this process kept running (its log, ps) before treating it as "
            "a second failure.";
  }
  if (!a.comms.empty())
    f.metrics.push_back({"communicators", static_cast<double>(a.comms.size()), Unit::kCount});
  f.metrics.push_back({"pid", static_cast<double>(a.rank.pid), Unit::kNone});
  for (const auto& [w, what] : a.where) {
    f.refs.push_back({w, !what.empty() ? "RAS monitor: " + what
                         : a.dead      ? "RAS: considered dead"
                                       : "RAS: missing communicator data"});
    if (f.refs.size() == 3) break;
  }
  f.confidence = !a.stalled_view_of.empty() ? 0.5 : a.dead ? 0.95 : 0.75;
  return f;
}

// The text report's groups of ranks by operation count, in the order RAS prints them (most
// ranks first): "26 ranks have launched up to operation 6650", "2 ranks have not launched any
// operations", "Rank 7 has launched up to operation 60 -- GPU 3 ...". RAS lists the ranks of a
// small group ("Rank 12 -- GPU 4 managed by ...") right after its count line, whichever side of
// the difference that group is on.
struct CountGroup {
  int64_t ranks = 0;
  int64_t ops = 0;
  std::vector<int> listed;
};

std::vector<CountGroup> TextGroups(const std::vector<std::string>& notes) {
  std::vector<CountGroup> groups;
  for (const std::string& n : notes) {
    auto words = SplitWhitespace(n);
    auto num = [&words](size_t i) { return i < words.size() ? ParseInt(words[i]) : std::nullopt; };
    if (words.size() >= 3 && words[1] == "ranks" && words[2] == "have" && num(0)) {
      CountGroup g;
      g.ranks = *num(0);
      if (words.size() >= 8 && words[3] == "launched" && num(7))
        g.ops = *num(7);
      else if (!Contains(n, "not launched any"))
        continue;
      groups.push_back(g);
    } else if (words.size() >= 2 && words[0] == "Rank" && num(1)) {
      const int rank = static_cast<int>(*num(1));
      if (words.size() >= 8 && words[2] == "has" && words[3] == "launched" && num(7)) {
        groups.push_back({1, *num(7), {rank}});
      } else if (words.size() >= 3 && words[2] == "--" && !groups.empty()) {
        groups.back().listed.push_back(rank);
      }
    }
  }
  return groups;
}

// A text report's MISMATCH of operation counts: who is behind, said so even when the ranks RAS
// lists are the ones ahead (NVIDIA/nccl#1911: 30 ranks at 640, the two listed at 641).
bool TextCountTitle(const RasComm& c, Finding& f) {
  const std::vector<CountGroup> groups = TextGroups(c.notes);
  if (groups.size() < 2) return false;
  const CountGroup* low = &groups[0];
  const CountGroup* high = &groups[0];
  int64_t total = 0;
  for (const CountGroup& g : groups) {
    total += g.ranks;
    if (g.ops < low->ops) low = &g;
    if (g.ops > high->ops) high = &g;
  }
  if (low->ops == high->ops) return false;
  const std::string of = " on communicator " + c.hash;
  if (!low->listed.empty()) {
    f.rank = low->listed.front();
    f.title =
        StrFormat("Rank%s %s launched up to operation %lld%s, %lld other ranks up to %lld",
                  low->listed.size() > 1 ? "s" : "", JoinInts(low->listed).c_str(),
                  static_cast<long long>(low->ops), of.c_str(),
                  static_cast<long long>(total - low->ranks), static_cast<long long>(high->ops));
  } else {
    f.title =
        StrFormat("%lld of %lld ranks launched up to operation %lld%s, behind %s",
                  static_cast<long long>(low->ranks), static_cast<long long>(total),
                  static_cast<long long>(low->ops), of.c_str(),
                  high->listed.empty()
                      ? StrFormat("%lld ranks at %lld", static_cast<long long>(high->ranks),
                                  static_cast<long long>(high->ops))
                            .c_str()
                      : StrFormat("rank%s %s at %lld", high->listed.size() > 1 ? "s" : "",
                                  JoinInts(high->listed).c_str(), static_cast<long long>(high->ops))
                            .c_str());
    if (!high->listed.empty())
      f.detail += " The ranks RAS lists (" + JoinInts(high->listed) +
                  ") are ahead, not behind: RAS lists the smaller group; the " +
                  std::to_string(low->ranks) + " ranks at the lower count are the ones behind.";
  }
  f.metrics.push_back({"collectives", static_cast<double>(low->ops), Unit::kCount});
  f.metrics.push_back({"most_collectives", static_cast<double>(high->ops), Unit::kCount});
  f.metrics.push_back({"ranks_behind", static_cast<double>(low->ranks), Unit::kCount});
  return true;
}

void Mismatch(const RasReport& rep, const RasComm& c, std::vector<Finding>& out) {
  const RasRank* low = nullptr;
  int64_t high = -1;
  for (const RasRank& r : c.ranks) {
    if (r.collectives < 0) continue;
    if (!low || r.collectives < low->collectives) low = &r;
    high = std::max(high, r.collectives);
  }
  bool text_says = c.errors.find("MISMATCH") != std::string::npos;
  if (!text_says && (!low || low->collectives == high)) return;
  Finding f = NewFinding("ras.mismatch");
  const bool counted = low && low->collectives < high;  // the JSON's per-rank counts
  if (counted) {
    f.rank = low->rank;
    f.title = StrFormat("%s launched %lld collectives on communicator %s, the others up to %lld",
                        Who(*low).c_str(), static_cast<long long>(low->collectives), c.hash.c_str(),
                        static_cast<long long>(high));
    f.metrics.push_back({"collectives", static_cast<double>(low->collectives), Unit::kCount});
    f.metrics.push_back({"most_collectives", static_cast<double>(high), Unit::kCount});
  }
  std::string behind;  // what the text report's groups say, after the notes
  if (!counted) {
    if (TextCountTitle(c, f)) {
      behind = std::move(f.detail);
      f.detail.clear();
    } else {
      f.title = c.hash.empty() ? std::string("The ranks of a communicator differ (RAS: MISMATCH)")
                               : "The ranks of communicator " + c.hash + " differ (RAS: MISMATCH)";
    }
  }
  f.detail = "RAS found the ranks of one communicator in different states.";
  for (size_t i = 0; i < c.notes.size() && i < 6; ++i) f.detail += " " + c.notes[i] + ".";
  f.detail += behind;
  f.detail +=
      " A difference of one or two in a running job is a snapshot taken mid-step; a "
      "rank far behind, or one that stays behind in a later query, is where a hang is.";
  f.fix =
      "Query again, a few times some seconds apart: if the counts do not advance, the ranks at "
      "the lower count are where the hang is (look at what they do: py-spy dump), as for a rank "
      "behind in a hang; if they advance, the difference was a snapshot taken mid-step.";
  f.refs.push_back({c.where.file.empty() ? SourceLoc{rep.path} : c.where,
                    "RAS: communicator " + c.hash + (c.errors.empty() ? "" : " " + c.errors)});
  f.confidence = 0.6;
  out.push_back(std::move(f));
}

// One entry per process: by host and pid where the pid is known (a monitor event names no rank,
// a STATUS report does), else by host and rank.
using AbsentMap = std::map<std::tuple<std::string, int64_t, int>, Absent>;

std::tuple<std::string, int64_t, int> KeyOf(const RasRank& r) {
  return {r.host, r.pid, r.pid > 0 ? -1 : r.rank};
}

// Marks each process declared dead later than another, and only in monitor streams that never
// declared that other one dead (the stalled process's own view once it resumed).
void MarkStalledViews(AbsentMap& absent) {
  const Absent* first = nullptr;
  for (const auto& [k, a] : absent)
    if (a.first_dead_ns >= 0 && (!first || a.first_dead_ns < first->first_dead_ns)) first = &a;
  if (!first) return;
  for (auto& [k, a] : absent) {
    if (&a == first || a.first_dead_ns <= first->first_dead_ns) continue;
    bool seen_together = false;
    for (const std::string& s : a.dead_in)
      seen_together = seen_together || std::find(first->dead_in.begin(), first->dead_in.end(), s) !=
                                           first->dead_in.end();
    if (seen_together) continue;
    a.stalled_view_of = Who(first->rank);
    a.stalled_gap = StrFormat(
        "%lld s", static_cast<long long>((a.first_dead_ns - first->first_dead_ns) / 1000000000));
  }
}

// The monitor mode's events: a process that stopped answering or was declared dead is absent as
// a STATUS report's missing rank is (joined with one by host and pid), with the events' times.
void MonitorEvents(const RasReport& rep, AbsentMap& absent) {
  for (const RasEvent& e : rep.events) {
    const bool loss = e.Lost();
    auto found = absent.find(KeyOf(e.peer));
    Absent* a = found == absent.end() ? nullptr : &found->second;
    if (!a && !loss) continue;
    if (!a) {
      a = &absent[KeyOf(e.peer)];
      a->rank = e.peer;
    }
    if (!loss && e.type != "PEER_RECOVERED") continue;
    a->dead = a->dead || e.Dead();
    if (e.Dead()) {
      if (e.time_ns >= 0 && (a->first_dead_ns < 0 || e.time_ns < a->first_dead_ns))
        a->first_dead_ns = e.time_ns;
      if (std::find(a->dead_in.begin(), a->dead_in.end(), rep.path) == a->dead_in.end())
        a->dead_in.push_back(rep.path);
    }
    a->recovered = e.type == "PEER_RECOVERED" || (a->recovered && !loss);
    std::string at = e.time.size() > 11 ? e.time.substr(11) : e.time;
    if (a->events.size() < kEventsShown)
      a->events.push_back(at + " " + e.type + (e.details.empty() ? "" : " (" + e.details + ")"));
    else
      ++a->more_events;
    if (a->where.size() < 3) a->where.push_back({e.where, e.type});
  }
}

}  // namespace

std::vector<Finding> FindRasRanks(const Job& job, const Options&) {
  std::vector<Finding> out;
  AbsentMap absent;
  auto note = [&](const RasRank& r, const std::string& comm, const SourceLoc& where) {
    Absent& a = absent[KeyOf(r)];
    if (a.comms.empty() && a.where.empty()) a.rank = r;
    if (a.rank.rank < 0 && r.rank >= 0) a.rank = r;  // a monitor's process, its rank now known
    a.dead = a.dead || r.dead;
    if (std::find(a.comms.begin(), a.comms.end(), comm) == a.comms.end()) a.comms.push_back(comm);
    a.where.push_back({where, ""});
  };
  for (const RasReport& rep : job.ras) {
    std::map<std::tuple<std::string, int64_t, int>, bool> in_this;
    for (const RasComm& c : rep.comms) {
      for (const RasRank& m : c.missing) {
        note(m, c.hash, c.where.file.empty() ? SourceLoc{rep.path} : c.where);
        in_this[KeyOf(m)] = true;
      }
      Mismatch(rep, c, out);
    }
    // Dead processes the text lists without a communicator block naming their rank.
    for (const RasRank& d : rep.dead_processes) {
      if (!absent.count(KeyOf(d))) note(d, "", {rep.path});
      absent[KeyOf(d)].dead = true;
    }
    for (const auto& [k, seen] : in_this) ++absent[k].reports;
    MonitorEvents(rep, absent);
  }
  MarkStalledViews(absent);
  for (auto& [k, a] : absent) {
    std::erase(a.comms, std::string());
    if (a.events.empty()) a.reports = std::max<size_t>(a.reports, 1);
    out.push_back(AbsentFinding(a));
  }
  return out;
}

}  // namespace commdx::analysis
