// The replay plan from Flight Recorder dumps: per process group the entries of its lowest rank's
// dump in record order, sized from the input and output tensor shapes, timed by duration_ms where
// the dump timed them (TORCH_NCCL_ENABLE_TIMING).
#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include "analysis/replay_sources.h"
#include "base/text.h"

namespace commdx::analysis::replay {

namespace {

// The collective of a profiling name, the op ProcessGroupNCCL names its work by:
//   "nccl:all_reduce", "nccl:_reduce_scatter_base", "nccl:send 0->1", "nccl:recv 0<-1"
//    ^backend ^op                                           ^op ^group ranks: self, peer
CollectiveType TypeOfProfilingName(std::string_view name) {
  static constexpr std::array<std::pair<std::string_view, CollectiveType>, 20> kOps = {{
      {"all_reduce", CollectiveType::kAllReduce},
      {"all_reduce_coalesced", CollectiveType::kAllReduce},
      {"allreduce_coalesced", CollectiveType::kAllReduce},
      {"all_reduce_barrier", CollectiveType::kBarrier},
      {"barrier", CollectiveType::kBarrier},
      {"all_gather", CollectiveType::kAllGather},
      {"_all_gather_base", CollectiveType::kAllGather},
      {"all_gather_into_tensor_coalesced", CollectiveType::kAllGather},
      {"reduce_scatter", CollectiveType::kReduceScatter},
      {"_reduce_scatter_base", CollectiveType::kReduceScatter},
      {"reduce_scatter_tensor_coalesced", CollectiveType::kReduceScatter},
      {"broadcast", CollectiveType::kBroadcast},
      {"_broadcast_oop", CollectiveType::kBroadcast},
      {"reduce", CollectiveType::kReduce},
      {"_reduce_oop", CollectiveType::kReduce},
      {"all_to_all", CollectiveType::kAllToAll},
      {"send", CollectiveType::kSend},
      {"recv", CollectiveType::kRecv},
      {"gather", CollectiveType::kGather},
      {"scatter", CollectiveType::kScatter},
  }};
  if (size_t colon = name.find(':'); colon != name.npos) name.remove_prefix(colon + 1);
  name = name.substr(0, name.find(' '));
  for (const auto& [op, type] : kOps)
    if (op == name) return type;
  return CollectiveType::kUnknown;
}

// The peer of "nccl:send 0->1" / "nccl:recv 0<-1"; -1 when the name has none.
int PeerOf(std::string_view name) {
  size_t arrow = name.find("->");
  if (arrow == name.npos) arrow = name.find("<-");
  if (arrow == name.npos) return -1;
  std::string_view rest = name.substr(arrow + 2);
  auto v = ConsumeInt(rest);
  return v && *v >= 0 && *v < (1 << 24) ? static_cast<int>(*v) : -1;
}

// Elements of every tensor of a sizes list ([[1024], [2, 1]]: 1026); a shape [] is a scalar.
uint64_t Elements(const std::vector<std::vector<int64_t>>& sizes) {
  uint64_t n = 0;
  for (const std::vector<int64_t>& shape : sizes) {
    uint64_t e = 1;
    for (int64_t d : shape) e *= d > 0 ? static_cast<uint64_t>(d) : 0;
    n += e;
  }
  return n;
}

// NCCL's count of an entry: all_gather sends its input, reduce_scatter receives its output,
// alltoall sends its input split among the ranks, recv receives its output.
uint64_t CountOf(const FrEntry& e, CollectiveType type, int nranks) {
  switch (type) {
    case CollectiveType::kReduceScatter:
    case CollectiveType::kRecv:
      return Elements(e.output_sizes);
    case CollectiveType::kAllToAll:
      return nranks > 0 ? Elements(e.input_sizes) / static_cast<uint64_t>(nranks) : 0;
    default:
      return Elements(e.input_sizes);
  }
}

std::string DtypeOf(const FrEntry& e, CollectiveType type) {
  const auto& dtypes =
      type == CollectiveType::kRecv || e.input_dtypes.empty() ? e.output_dtypes : e.input_dtypes;
  return dtypes.empty() ? std::string() : dtypes.front();
}

const FrProcessGroup* FindGroup(const FrDump& d, const std::string& name) {
  for (const FrProcessGroup& g : d.groups)
    if (g.name == name) return &g;
  return nullptr;
}

}  // namespace

ReplayPlan FromFlight(const std::vector<FrDump>& dumps) {
  ReplayPlan plan;
  plan.source = "flight_recorder";
  // One dump per rank (a pickle and its JSON twin tell the same), lowest rank first.
  std::map<int, const FrDump*> by_rank;
  for (const FrDump& d : dumps) {
    by_rank.emplace(d.rank, &d);
    for (const FrProcessGroup& g : d.groups)
      for (int r : g.ranks) plan.world_size = std::max(plan.world_size, r + 1);
  }
  plan.world_size = std::max(plan.world_size, static_cast<int>(by_rank.size()));
  std::vector<std::string> names;
  std::map<std::string, const FrDump*> source;
  for (const auto& [rank, d] : by_rank)
    for (const FrEntry& e : d->entries)
      if (source.emplace(e.pg_name, d).second) names.push_back(e.pg_name);

  Notes notes;
  for (const std::string& name : names) {
    const FrDump& d = *source[name];
    ReplayGroup g;
    g.name = name;
    g.source_rank = d.rank;
    if (const FrProcessGroup* pg = FindGroup(d, name)) {
      g.desc = pg->desc;
      g.ranks = pg->ranks;
      std::sort(g.ranks.begin(), g.ranks.end());
      g.size = static_cast<int>(g.ranks.size());
    }
    int64_t first_seq = -1;
    for (const FrEntry& e : d.entries) {
      if (e.pg_name != name) continue;
      if (g.desc.empty()) g.desc = e.pg_desc;
      if (!e.is_p2p && first_seq < 0) first_seq = e.collective_seq_id;
      ReplayCall call;
      call.type = TypeOfProfilingName(e.profiling_name);
      if (call.type == CollectiveType::kUnknown) {
        notes.LeaveOut(name, call.type, "'" + e.profiling_name + "' names no one NCCL call");
        continue;
      }
      const std::string dtype = DtypeOf(e, call.type);
      call.dtype = NcclDtypeOfTorch(dtype);
      if (NoNcclCall(call.type).empty() && !dtype.empty() && call.dtype < 0) {
        notes.LeaveOut(name, call.type, "NCCL has no datatype for '" + dtype + "'");
        continue;
      }
      call.count = CountOf(e, call.type, g.size);
      call.root = PeerOf(e.profiling_name);
      if (!Admit(call, g.size, name, notes)) continue;
      if (e.duration_ms >= 0) call.in_job_ns = std::llround(e.duration_ms * 1e6);
      call.seq = e.is_p2p ? e.p2p_seq_id : e.collective_seq_id;
      g.calls.push_back(call);
    }
    // Record ids count every entry from 0, sequence ids a group's collectives from 1: when the
    // buffer wrapped, the group's ids before its first entry are calls it dropped.
    const bool wrapped = !d.entries.empty() && d.entries.front().record_id > 0;
    if (wrapped && first_seq > 1)
      notes.LeaveOut(name, CollectiveType::kUnknown,
                     "issued before the dump's oldest entry (the Flight Recorder's ring buffer "
                     "had dropped them)",
                     static_cast<uint64_t>(first_seq - 1));
    AddGroup(plan, std::move(g), d.file);
  }
  notes.Fill(plan);
  return plan;
}

}  // namespace commdx::analysis::replay
