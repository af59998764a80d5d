// The replay plan from profiler traces (Kineto, or Nsight Systems exports read as traces): each
// process group's calls as its lowest rank issued them, sized from the collective's arguments,
// timed by its kernel, the wait from the cross-rank match (analysis/trace_cross_rank.h).
#include <algorithm>
#include <map>

#include "analysis/replay_sources.h"
#include "analysis/trace_cross_rank.h"
#include "analysis/trace_pattern.h"
#include "model/comm_kernels.h"
#include "model/nccl_calls.h"

namespace commdx::analysis::replay {

namespace {

std::string GroupName(const RankTrace& t, const Collective& c) {
  return c.pg >= 0 ? t.process_groups[c.pg].name : std::string();
}

// The index of the step whose GPU window holds `ts`; -1 outside every step.
int32_t StepIndex(const RankTrace& t, int64_t ts) {
  auto it = std::upper_bound(t.steps.begin(), t.steps.end(), ts,
                             [](int64_t x, const Step& s) { return x < s.start_ns; });
  if (it == t.steps.begin()) return -1;
  --it;
  return ts < it->end_ns ? static_cast<int32_t>(it - t.steps.begin()) : -1;
}

// Complete steps from the group's first call's step to its last's.
int StepsSpanned(const RankTrace& t, const std::vector<ReplayCall>& calls) {
  int32_t first = -1, last = -1;
  for (const ReplayCall& c : calls) {
    if (c.step < 0) continue;
    first = first < 0 ? c.step : std::min(first, c.step);
    last = std::max(last, c.step);
  }
  int n = 0;
  for (int32_t s = first; s >= 0 && s <= last; ++s) n += t.steps[s].cut ? 0 : 1;
  return n;
}

// Per trace and collective, its wait for the last rank of its group (-1: not matched).
std::vector<std::vector<int64_t>> Waits(const TraceSet& set) {
  std::vector<std::vector<int64_t>> out(set.ranks.size());
  for (size_t i = 0; i < set.ranks.size(); ++i) out[i].assign(set.ranks[i].collectives.size(), -1);
  for (const MatchedCollective& m : MatchAcrossRanks(set).matches)
    for (const MatchedPart& p : m.parts) out[p.trace][p.coll] = p.wait_ns;
  return out;
}

ReplayGroup GroupOf(const TraceSet& set, const std::string& name, const RankTrace& t) {
  ReplayGroup g;
  g.name = name;
  g.source_rank = t.rank;
  for (const ProcessGroupInfo& pg : set.process_groups)
    if (pg.name == name && !name.empty()) {
      g.desc = pg.desc;
      g.ranks = pg.ranks;
      std::sort(g.ranks.begin(), g.ranks.end());
      g.size = std::max(pg.size, static_cast<int>(g.ranks.size()));
    }
  return g;
}

}  // namespace

ReplayPlan FromTrace(const TraceSet& set) {
  ReplayPlan plan;
  plan.source = "trace";
  plan.world_size = set.world_size;
  // Each group's lowest rank: the traces are sorted by rank, so the first that has it.
  std::vector<std::string> names;
  std::map<std::string, size_t> source;
  for (size_t ti = 0; ti < set.ranks.size(); ++ti)
    for (const Collective& c : set.ranks[ti].collectives)
      if (source.emplace(GroupName(set.ranks[ti], c), ti).second)
        names.push_back(GroupName(set.ranks[ti], c));
  if (names.empty()) return plan;

  const std::vector<std::vector<int64_t>> waits = Waits(set);
  Notes notes;
  for (const std::string& name : names) {
    const size_t ti = source[name];
    const RankTrace& t = set.ranks[ti];
    ReplayGroup g = GroupOf(set, name, t);
    for (size_t ci = 0; ci < t.collectives.size(); ++ci) {
      const Collective& c = t.collectives[ci];
      if (GroupName(t, c) != name) continue;
      g.size = std::max(g.size, static_cast<int>(c.group_size));
      // A batch of one send and one receive shifting by the same distance (its peer is where it
      // sends): replayed as that send, which the runner runs as the exchange.
      const CollectiveType type =
          c.type == CollectiveType::kSendRecv && c.peer >= 0 ? CollectiveType::kSend : c.type;
      if (CommFamily f = FamilyOf(t, c); f != CommFamily::kNccl) {
        notes.LeaveOut(name, type,
                       std::string("run by ") + CommFamilyName(f) + " kernels, not NCCL");
        continue;
      }
      if (NoNcclCall(type).empty() && c.bytes == 0) {
        notes.LeaveOut(name, type,
                       c.launched ? "the trace does not give its size"
                                  : "launched before the trace began, so its size is not in it");
        continue;
      }
      ReplayCall call;
      call.type = type;
      call.dtype = NcclDtypeOfTorch(t.Name(c.dtype));
      if (NoNcclCall(type).empty() && c.dtype != 0 && call.dtype < 0) {
        notes.LeaveOut(name, type, "NCCL has no datatype for '" + t.Name(c.dtype) + "'");
        continue;
      }
      const int nranks = c.group_size > 0 ? c.group_size : g.size;
      // Nsight Systems' NCCL payloads give one rank's bytes and no datatype.
      if (c.dtype == 0 && c.bytes > 0 && NoNcclCall(type).empty()) {
        call.dtype = ByteExactDtype(type, NcclTestsCount(type, c.bytes, 1, nranks), notes);
      }
      call.count = NcclTestsCount(
          type, c.bytes, static_cast<uint64_t>(std::max(NcclDataTypeBytes(call.dtype), 0)), nranks);
      call.root = c.peer;
      if (!Admit(call, nranks, name, notes)) continue;
      if (c.gpu_op >= 0) {
        call.in_job_ns = c.end_ns > c.start_ns ? c.end_ns - c.start_ns : -1;
        call.step = StepIndex(t, c.start_ns);
      }
      call.wait_ns = waits[ti][ci];
      call.seq = c.seq;
      g.calls.push_back(call);
    }
    g.steps = StepsSpanned(t, g.calls);
    AddGroup(plan, std::move(g), t.file);
  }
  notes.Fill(plan);
  return plan;
}

}  // namespace commdx::analysis::replay
