// ras.dead_rank, ras.missing_rank and ras.mismatch from NCCL RAS reports (ncclras, text or JSON).
// A rank whose process RAS considers dead (unreachable over the RAS network for ~80 s) or that
// did not answer (missing communicator data: ~5 s without an answer) is named once per process
// with every communicator it is missing from; dead outranks missing when several reports of the
// job are given (snapshots taken one after another). Ranks of a communicator that launched
// different numbers of collectives (RAS's MISMATCH, or the JSON's collective_counts) name the rank
// that launched fewest: it is behind. docs/findings/ras.md.
#include <algorithm>
#include <map>
#include <tuple>

#include "analysis/catalogue.h"
#include "analysis/ras_analyzers.h"
#include "base/str_format.h"

namespace commdx::analysis {

namespace {

struct Absent {
  RasRank rank;
  bool dead = false;
  std::vector<std::string> comms;
  std::vector<SourceLoc> where;
  size_t reports = 0;
};

std::string Who(const RasRank& r) {
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
        "timeout (20 s keep-alive + 60 s of failed reconnects by default): it crashed, "
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
        "outside NCCL, or slow to reach; a later query after ~80 s says dead or not.";
    f.fix =
        "Query again (ncclras) after a minute; meanwhile look at what the process does "
        "(py-spy dump --pid, its state in ps: T = stopped).";
  }
  f.detail += StrFormat(" Seen in %zu RAS report(s).", a.reports);
  f.metrics.push_back({"communicators", static_cast<double>(a.comms.size()), Unit::kCount});
  f.metrics.push_back({"pid", static_cast<double>(a.rank.pid), Unit::kNone});
  for (const SourceLoc& w : a.where) {
    f.refs.push_back({w, a.dead ? "RAS: considered dead" : "RAS: missing communicator data"});
    if (f.refs.size() == 3) break;
  }
  f.confidence = a.dead ? 0.95 : 0.75;
  return f;
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
  if (low && low->collectives < high) {
    f.rank = low->rank;
    f.title = StrFormat("%s launched %lld collectives on communicator %s, the others up to %lld",
                        Who(*low).c_str(), static_cast<long long>(low->collectives), c.hash.c_str(),
                        static_cast<long long>(high));
    f.metrics.push_back({"collectives", static_cast<double>(low->collectives), Unit::kCount});
    f.metrics.push_back({"most_collectives", static_cast<double>(high), Unit::kCount});
  } else {
    f.title = "The ranks of communicator " + c.hash + " differ (RAS: MISMATCH)";
  }
  f.detail = "RAS found the ranks of one communicator in different states.";
  for (size_t i = 0; i < c.notes.size() && i < 6; ++i) f.detail += " " + c.notes[i] + ".";
  f.detail +=
      " A difference of one or two in a running job is a snapshot taken mid-step; a "
      "rank far behind, or one that stays behind in a later query, is where a hang is.";
  f.fix =
      "Query again; if the same rank stays behind, look at what it does (py-spy dump), as "
      "for a rank behind in a hang.";
  f.refs.push_back({c.where.file.empty() ? SourceLoc{rep.path} : c.where, "RAS report"});
  f.confidence = 0.6;
  out.push_back(std::move(f));
}

}  // namespace

std::vector<Finding> FindRasRanks(const Job& job, const Options&) {
  std::vector<Finding> out;
  std::map<std::tuple<std::string, int64_t, int>, Absent> absent;
  auto note = [&](const RasRank& r, const std::string& comm, const SourceLoc& where) {
    Absent& a = absent[{r.host, r.pid, r.rank}];
    if (a.comms.empty() && a.where.empty()) a.rank = r;
    a.dead = a.dead || r.dead;
    if (std::find(a.comms.begin(), a.comms.end(), comm) == a.comms.end()) a.comms.push_back(comm);
    a.where.push_back(where);
  };
  for (const RasReport& rep : job.ras) {
    std::map<std::tuple<std::string, int64_t, int>, bool> in_this;
    for (const RasComm& c : rep.comms) {
      for (const RasRank& m : c.missing) {
        note(m, c.hash, c.where.file.empty() ? SourceLoc{rep.path} : c.where);
        in_this[{m.host, m.pid, m.rank}] = true;
      }
      Mismatch(rep, c, out);
    }
    // Dead processes the text lists without a communicator block naming their rank.
    for (const RasRank& d : rep.dead_processes) {
      bool named = false;
      for (const auto& [k, a] : absent)
        if (std::get<0>(k) == d.host && std::get<1>(k) == d.pid) named = true;
      if (!named) note(d, "", {rep.path});
      for (auto& [k, a] : absent)
        if (std::get<0>(k) == d.host && std::get<1>(k) == d.pid) a.dead = true;
    }
    for (auto& [k, a] : absent)
      if (in_this.count(k)) ++a.reports;
  }
  for (auto& [k, a] : absent) {
    std::erase(a.comms, std::string());
    a.reports = std::max<size_t>(a.reports, 1);
    out.push_back(AbsentFinding(a));
  }
  return out;
}

}  // namespace commdx::analysis
