// The replay plan from NCCL COLL lines (model/nccl_calls.h): per communicator the calls of its
// lowest rank in log order, already in NCCL's terms; the lines carry no timing.
#include <algorithm>
#include <map>

#include "analysis/replay_sources.h"

namespace commdx::analysis::replay {

ReplayPlan FromNcclLog(const NcclSetup& nccl) {
  ReplayPlan plan;
  plan.source = "nccl_log";
  for (const NcclCommunicator& c : nccl.communicators)
    plan.world_size = std::max(plan.world_size, c.nranks);
  // Per communicator the stream of its lowest rank (a stream no init line named, rank -1, only
  // where no other has the communicator), in the order communicators first appear.
  std::vector<std::string> ids;
  std::map<std::string, const NcclCallStream*> source;
  for (const NcclCallStream& s : nccl.call_streams) {
    plan.world_size = std::max(plan.world_size, s.nranks);
    auto [it, fresh] = source.emplace(s.comm_id, &s);
    if (fresh) ids.push_back(s.comm_id);
    const int have = it->second->rank;
    if (s.rank >= 0 && (have < 0 || s.rank < have)) it->second = &s;
  }
  Notes notes;
  for (const std::string& id : ids) {
    const NcclCallStream& s = *source[id];
    ReplayGroup g;
    g.name = id;
    g.size = s.nranks;
    g.source_rank = s.rank;
    for (const NcclCall& c : s.calls) {
      ReplayCall call;
      call.type = c.type;
      call.dtype = c.dtype;
      call.count = c.count;
      call.red_op = c.red_op;
      if (c.red_op >= 5) {
        // Made by ncclRedOpCreatePreMulSum in the job's communicator: no other has it.
        call.red_op = 0;
        notes.Assume(
            "Reductions with an operator the job made (ncclRedOpCreatePreMulSum, op >= 5) "
            "are replayed as sum.");
      }
      call.root = c.root;
      if (!Admit(call, s.nranks, id, notes)) continue;
      call.seq = static_cast<int64_t>(c.op_count);
      g.calls.push_back(call);
    }
    AddGroup(plan, std::move(g), s.file);
  }
  notes.Fill(plan);
  return plan;
}

}  // namespace commdx::analysis::replay
