// The replay plan from NCCL Inspector records: per communicator the records of its lowest rank in
// dump order, sized by msg_bytes, timed by exec_ns. The plugin records no datatype: one that keeps
// the bytes exact is assumed (replay_sources.h ByteExactDtype).
#include <algorithm>
#include <map>
#include <set>

#include "analysis/inspector_match.h"
#include "analysis/replay_sources.h"
#include "model/nccl_calls.h"

namespace commdx::analysis::replay {

namespace {

// coll_perf.coll as the plugin spells NCCL's functions.
CollectiveType TypeOfColl(std::string_view coll) {
  if (coll == "AllReduce") return CollectiveType::kAllReduce;
  if (coll == "AllGather") return CollectiveType::kAllGather;
  if (coll == "ReduceScatter") return CollectiveType::kReduceScatter;
  if (coll == "Broadcast") return CollectiveType::kBroadcast;
  if (coll == "Reduce") return CollectiveType::kReduce;
  if (coll == "AllToAll") return CollectiveType::kAllToAll;
  return CollectiveType::kUnknown;
}

// Per record of a complete collective, its wait for the late rank (exec time minus the late
// rank's, analysis/inspector_match.h).
std::map<const InspectorRecord*, int64_t> Waits(const std::vector<InspectorRecord>& records) {
  std::map<const InspectorRecord*, int64_t> out;
  for (const InspectorComm& comm : MatchInspector(records))
    for (const MatchedColl& m : comm.colls)
      if (m.complete && m.late_rank >= 0)
        for (const InspectorRecord* r : m.ranks)
          out[r] = std::max<int64_t>(0, r->exec_ns - m.transfer_ns);
  return out;
}

}  // namespace

ReplayPlan FromInspector(const std::vector<InspectorRecord>& records) {
  ReplayPlan plan;
  plan.source = "inspector";
  // Per communicator its lowest rank, in the order communicators first appear.
  std::vector<std::string> ids;
  std::map<std::string, int> lowest;
  for (const InspectorRecord& r : records) {
    auto [it, fresh] = lowest.emplace(r.comm_id, r.rank);
    if (fresh) ids.push_back(r.comm_id);
    if (r.rank >= 0 && (it->second < 0 || r.rank < it->second)) it->second = r.rank;
    plan.world_size = std::max(plan.world_size, r.n_ranks);
  }
  const std::map<const InspectorRecord*, int64_t> waits = Waits(records);
  Notes notes;
  for (const std::string& id : ids) {
    ReplayGroup g;
    g.name = id;
    g.source_rank = lowest[id];
    // Per function, the coll_sn seen: the plugin keeps one record per communicator between two
    // dump passes, so the numbers it skipped are calls it never wrote.
    std::map<CollectiveType, std::set<uint64_t>> seen;
    std::string file;
    for (const InspectorRecord& r : records) {
      if (r.comm_id != id || r.rank != g.source_rank) continue;
      g.size = std::max(g.size, r.n_ranks);
      ReplayCall call;
      call.type = TypeOfColl(r.coll);
      if (NoNcclCall(call.type).empty()) {
        call.dtype = ByteExactDtype(call.type, r.msg_bytes, notes);
        // msg_bytes is NCCL's count x element size (per rank for all_gather / reduce_scatter).
        call.count = r.msg_bytes / static_cast<uint64_t>(NcclDataTypeBytes(call.dtype));
      }
      if (!Admit(call, r.n_ranks, id, notes)) continue;
      call.in_job_ns = r.exec_ns;
      if (auto w = waits.find(&r); w != waits.end()) call.wait_ns = w->second;
      call.seq = static_cast<int64_t>(r.coll_sn);
      seen[call.type].insert(r.coll_sn);
      g.calls.push_back(call);
      if (file.empty()) file = r.where.file;  // the plugin writes one file per process
    }
    for (const auto& [type, sns] : seen)
      notes.LeaveOut(id, type, "not written by the Inspector plugin (gaps in its coll_sn)",
                     *sns.rbegin() + 1 - sns.size());
    AddGroup(plan, std::move(g), file);
  }
  notes.Fill(plan);
  return plan;
}

}  // namespace commdx::analysis::replay
