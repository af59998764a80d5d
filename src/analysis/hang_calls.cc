// hang.rank_behind and hang.desync from NCCL COLL lines, without any trace.
//
// NCCL counts group launches per communicator (opCount, hex in the log); every rank of a
// communicator must issue the same collectives in the same order, so at the end of a log:
//  - a rank whose last opCount is below the others' stopped first: the others wait in the
//    collective it never issued (hang.rank_behind);
//  - at one opCount, ranks that issued a different collective, size, datatype or root are out
//    of step (hang.desync): NCCL then hangs or corrupts data.
// Send/recv calls differ between ranks by design and are left out of the comparison.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "analysis/catalogue.h"
#include "analysis/hang_analyzers.h"
#include "base/str_format.h"

namespace commdx::analysis {

namespace {

using Streams = std::vector<const NcclCallStream*>;

std::string Describe(const NcclCall& c) {
  std::string s = CollectiveTypeName(c.type);
  s +=
      StrFormat(" of %llu %s", static_cast<unsigned long long>(c.count), NcclDataTypeName(c.dtype));
  if (c.type == CollectiveType::kBroadcast || c.type == CollectiveType::kReduce)
    s += StrFormat(" root %d", c.root);
  return s;
}

// "rank 3", or "host:pid [dev]" for a stream whose communicator no init line named.
std::string Who(const NcclCallStream& s) {
  if (s.rank >= 0) return StrFormat("rank %d", s.rank);
  return StrFormat("%s:%lld [%d]", s.host.c_str(), static_cast<long long>(s.pid), s.cuda_dev);
}

EvidenceRef CallRef(const NcclCallStream& s, const NcclCall& c) {
  SourceLoc loc{s.file};
  loc.line = c.line;
  return {loc, StrFormat("%s: opCount %llx %s", Who(s).c_str(),
                         static_cast<unsigned long long>(c.op_count), Describe(c).c_str())};
}

// Communicators with COLL lines from at least two ranks, ordered by id. Excerpts without init
// lines name communicators only by pointer; streams of one size are then taken as one
// communicator when each process and device has exactly one of them.
std::map<std::string, Streams> ByCommunicator(const NcclSetup& setup) {
  std::map<std::string, Streams> out;
  std::map<int, Streams> loose;
  for (const auto& s : setup.call_streams) {
    if (s.calls.empty()) continue;
    if (s.identified)
      out[s.comm_id].push_back(&s);
    else if (s.nranks > 1)
      loose[s.nranks].push_back(&s);
  }
  for (auto& [n, v] : loose) {
    std::set<std::tuple<std::string, int64_t, int>> seen;
    bool unique = true;
    for (auto* s : v) unique = unique && seen.insert({s->host, s->pid, s->cuda_dev}).second;
    if (unique && v.size() <= static_cast<size_t>(n))
      out[StrFormat("of %d ranks (no init lines)", n)] = v;
  }
  std::erase_if(out, [](const auto& kv) { return kv.second.size() < 2; });
  for (auto& [id, v] : out)
    std::sort(v.begin(), v.end(), [](auto* a, auto* b) {
      return std::tie(a->rank, a->host, a->pid, a->cuda_dev) <
             std::tie(b->rank, b->host, b->pid, b->cuda_dev);
    });
  return out;
}

void FindBehind(const std::string& comm, const Streams& streams, std::vector<Finding>& out) {
  uint64_t max_oc = 0;
  for (auto* s : streams) max_oc = std::max(max_oc, s->calls.back().op_count);
  const NcclCallStream* first = nullptr;  // the rank that stopped earliest
  size_t behind = 0;
  for (auto* s : streams) {
    if (s->calls.back().op_count == max_oc) continue;
    ++behind;
    if (!first || s->calls.back().op_count < first->calls.back().op_count) first = s;
  }
  if (!first) return;
  const NcclCall& last = first->calls.back();
  const NcclCallStream* ahead = nullptr;
  for (auto* s : streams)
    if (s->calls.back().op_count == max_oc) ahead = s;
  Finding f = NewFinding("hang.rank_behind");
  if (first->rank >= 0) f.rank = first->rank;
  f.confidence = 0.7;
  std::string who = Who(*first);
  f.title = StrFormat(
      "%s stopped issuing collectives first: its last is opCount %llx (%s) "
      "on communicator %s, other ranks reached opCount %llx",
      who.c_str(), static_cast<unsigned long long>(last.op_count), Describe(last).c_str(),
      comm.c_str(), static_cast<unsigned long long>(max_oc));
  f.detail = StrFormat(
      "%zu of %zu ranks with COLL lines stopped before the others. If the job "
      "hung, the other ranks wait in a collective %s never called: look at "
      "what it did after its last collective (an exception, a data wait, a "
      "branch the others did not take). If the logs were cut at different "
      "times, this says nothing.",
      behind, streams.size(), who.c_str());
  f.fix =
      "Find why that rank did not reach the next collective (its stack with py-spy dump, "
      "its own errors); a Flight Recorder dump (TORCH_NCCL_TRACE_BUFFER_SIZE) shows the "
      "Python frames.";
  f.metrics.push_back({"last_op_count", static_cast<double>(last.op_count), Unit::kCount});
  f.metrics.push_back({"max_op_count", static_cast<double>(max_oc), Unit::kCount});
  f.metrics.push_back({"ranks_behind", static_cast<double>(behind), Unit::kRanks});
  f.refs.push_back(CallRef(*first, last));
  f.refs.push_back(CallRef(*ahead, ahead->calls.back()));
  out.push_back(std::move(f));
}

bool SameCall(const NcclCall& a, const NcclCall& b) {
  return a.op_count == b.op_count && a.type == b.type && a.count == b.count && a.dtype == b.dtype &&
         a.red_op == b.red_op && a.root == b.root;
}

// The first opCount (up to `limit`) at which the collectives (send/recv left out) of two ranks
// differ; UINT64_MAX when they agree.
uint64_t FirstMismatch(const NcclCallStream& a, const NcclCallStream& b, uint64_t limit) {
  auto next = [limit](const std::vector<NcclCall>& v, size_t i) {
    while (i < v.size() && IsPointToPoint(v[i].type)) ++i;
    return i < v.size() && v[i].op_count <= limit ? i : v.size();
  };
  size_t i = next(a.calls, 0), j = next(b.calls, 0);
  while (i < a.calls.size() || j < b.calls.size()) {
    if (i == a.calls.size()) return b.calls[j].op_count;
    if (j == b.calls.size()) return a.calls[i].op_count;
    if (!SameCall(a.calls[i], b.calls[j]))
      return std::min(a.calls[i].op_count, b.calls[j].op_count);
    i = next(a.calls, i + 1);
    j = next(b.calls, j + 1);
  }
  return UINT64_MAX;
}

// What one rank issued at one opCount, and the line showing it.
std::string CallsAt(const NcclCallStream& s, uint64_t oc, const NcclCall** first) {
  std::string out;
  *first = nullptr;
  for (const auto& c : s.calls) {
    if (c.op_count != oc || IsPointToPoint(c.type)) continue;
    if (!*first) *first = &c;
    if (!out.empty()) out += " + ";
    out += Describe(c);
  }
  return out.empty() ? "nothing" : out;
}

void FindDesync(const std::string& comm, const Streams& streams, std::vector<Finding>& out) {
  uint64_t limit = UINT64_MAX;
  for (auto* s : streams) limit = std::min(limit, s->calls.back().op_count);
  uint64_t at = UINT64_MAX;
  for (size_t r = 1; r < streams.size(); ++r)
    at = std::min(at, FirstMismatch(*streams[0], *streams[r], limit));
  if (at == UINT64_MAX) return;
  std::map<std::string, std::vector<const NcclCallStream*>> by_calls;
  std::map<std::string, const NcclCall*> line_of;
  for (auto* s : streams) {
    const NcclCall* c = nullptr;
    std::string what = CallsAt(*s, at, &c);
    by_calls[what].push_back(s);
    if (c && !line_of.count(what)) line_of[what] = c;
  }
  auto majority = std::max_element(by_calls.begin(), by_calls.end(), [](auto& x, auto& y) {
    return x.second.size() < y.second.size();
  });
  bool has_majority = by_calls.size() > 1 && majority->second.size() * 2 > streams.size();
  Finding f = NewFinding("hang.desync");
  std::string groups;
  for (const auto& [what, ranks] : by_calls) {
    std::string list;
    for (auto* s : ranks) list += (list.empty() ? "" : ", ") + Who(*s);
    groups += StrFormat("%s%s: %s", groups.empty() ? "" : "; ", list.c_str(), what.c_str());
    if (line_of.count(what)) f.refs.push_back(CallRef(*ranks.front(), *line_of[what]));
    if (has_majority && what != majority->first && !f.rank && ranks.front()->rank >= 0)
      f.rank = ranks.front()->rank;
  }
  f.title = StrFormat("Ranks of communicator %s issued different collectives at opCount %llx",
                      comm.c_str(), static_cast<unsigned long long>(at));
  f.detail =
      "Every rank of a communicator must call the same collectives with the same sizes in "
      "the same order. At this opCount they did not (" +
      groups +
      "): the job hangs there or exchanges wrong data. Usually a branch taken on some "
      "ranks only (a rank-dependent condition, uneven data, a skipped step).";
  f.fix =
      "Find the code path that issues a different collective on those ranks; "
      "TORCH_DISTRIBUTED_DEBUG=DETAIL checks collective order and shapes at run time.";
  f.metrics.push_back({"op_count", static_cast<double>(at), Unit::kCount});
  f.metrics.push_back({"variants", static_cast<double>(by_calls.size()), Unit::kCount});
  out.push_back(std::move(f));
}

}  // namespace

std::vector<Finding> FindCallHang(const Job& job, const Options&) {
  std::vector<Finding> out;
  for (const auto& [comm, streams] : ByCommunicator(job.nccl)) {
    FindDesync(comm, streams, out);
    FindBehind(comm, streams, out);
  }
  return out;
}

}  // namespace commdx::analysis
