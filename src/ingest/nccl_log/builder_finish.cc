// End of one file: lines still waiting for a communicator are tied to one, communicators get
// their job-wide identity (commId, or size + order where no commId is logged), the file's facts
// become a setup of their own, and that is merged into the Job's NcclSetup (setup_merge.h).
#include <algorithm>

#include "base/text.h"
#include "ingest/move_append.h"
#include "ingest/nccl_log/builder.h"
#include "ingest/nccl_log/builder_impl.h"
#include "ingest/nccl_log/setup_merge.h"

namespace commdx::ingest::nccl_log {

namespace {

// The file's communicators by id, so that a file of 40,000 communicators (or 80,000 ranks of
// one) costs one lookup per record, not a scan of every communicator seen so far.
class CommIndex {
 public:
  explicit CommIndex(NcclSetup& setup) : setup_(setup) {
    for (size_t i = 0; i < setup.communicators.size(); ++i)
      by_id_.emplace(setup.communicators[i].comm_id, i);
  }
  size_t FindOrAdd(const std::string& id) {
    auto [it, inserted] = by_id_.emplace(id, setup_.communicators.size());
    if (inserted) setup_.communicators.emplace_back().comm_id = id;
    return it->second;
  }

 private:
  NcclSetup& setup_;
  std::unordered_map<std::string, size_t> by_id_;
};

// Merges one record's facts; its connections are added by the caller.
void MergeRec(CommRec& rec, NcclCommunicator& comm) {
  comm.nranks = std::max(comm.nranks, rec.nranks);
  comm.nnodes = std::max(comm.nnodes, rec.nnodes);
  if (rec.rank.rank >= 0) {
    auto& r = comm.ranks[rec.rank.rank];
    if (r.rank < 0 || r.ref.line.empty()) r = rec.rank;
  }
  // Ranks known only from connection lines: the printer is the sender, or the receiver of a
  // "[receive]" line; 2.5 - 2.17 put the busId in the brackets.
  for (const auto& c : rec.conns) {
    int printer = c.direction == 2 ? c.to_rank : c.from_rank;
    const std::string& id = c.direction == 2 ? c.to_id : c.from_id;
    if (printer < 0 || comm.ranks.count(printer)) continue;
    NcclRankInfo r;
    r.rank = printer;
    r.host = c.host;
    r.pid = c.pid;
    r.ref = c.ref;
    if (id.size() >= 4) r.bus_id = id;
    comm.ranks[printer] = std::move(r);
  }
  int ring_count = static_cast<int>(rec.rings.size());
  comm.ring_channels = std::max({comm.ring_channels, rec.ring_nchannels, ring_count});
  if (comm.rings.empty())
    for (auto& [ch, order] : rec.rings) comm.rings.push_back(order);
  if (comm.trees.empty()) comm.trees = std::move(rec.trees);
  if (rec.counts.coll > comm.coll_channels) {
    comm.coll_channels = rec.counts.coll;
    comm.channels_ref = rec.counts_ref;
  }
  comm.nvls_channels = std::max(comm.nvls_channels, rec.counts.nvls);
  comm.collnet_channels = std::max(comm.collnet_channels, rec.counts.collnet);
  comm.p2p_channels = std::max(comm.p2p_channels, rec.counts.p2p);
  comm.init_start += rec.starts;
  comm.init_complete += rec.completes;
  for (auto& r : rec.init_refs)
    if (comm.init_refs.size() < 8) comm.init_refs.push_back(std::move(r));
}

// Identity: commId; else, for a split, the parent's commId and the split's color ("0x1a2b/color
// 7": members of one split share both, so each sub-group of a parent is its own communicator);
// else "nranks=N#k" for the k-th communicator of that size on the device.
// A communicator's connections are the records' in record order, repeats included: the merge
// into the Job counts repeats and orders them by line (SetupMerge).
// Returns each record's communicator id ("" for records with COLL lines only, which name no
// communicator of their own).
std::vector<std::string> MergeComms(std::vector<CommRec>& comms, NcclSetup& setup) {
  CommIndex index(setup);
  std::vector<std::string> ids(comms.size());
  std::map<std::tuple<size_t, int, int>, int> ordinal;
  std::vector<std::vector<size_t>> recs_of(setup.communicators.size());
  auto add = [&](size_t rec, const std::string& id) {
    size_t c = index.FindOrAdd(id);
    if (c >= recs_of.size()) recs_of.resize(c + 1);
    recs_of[c].push_back(rec);
  };
  // A split's parent, by the parent's pointer in the same process.
  using ProcPtr = std::pair<size_t, std::string_view>;  // views into the records
  std::map<ProcPtr, std::string_view> id_by_ptr;
  for (size_t i = 1; i < comms.size(); ++i)
    if (!comms[i].comm_id.empty())
      id_by_ptr.emplace(ProcPtr(comms[i].proc, comms[i].ptr), comms[i].comm_id);
  for (size_t i = 1; i < comms.size(); ++i) {
    CommRec& rec = comms[i];
    if (rec.rank.rank < 0 && rec.starts == 0 && rec.completes == 0) continue;  // only COLL lines
    std::string id = rec.comm_id;
    if (id.empty() && !rec.parent.empty())
      if (auto it = id_by_ptr.find(ProcPtr(rec.proc, rec.parent)); it != id_by_ptr.end())
        id = std::string(it->second) + "/color " + rec.color;
    if (id.empty()) {
      int k = ordinal[{rec.proc, rec.dev, rec.nranks}]++;
      id = "nranks=" + std::to_string(rec.nranks) + "#" + std::to_string(k);
    }
    ids[i] = id;
    add(i, id);
  }
  CommRec& orphan = comms[0];
  if (!orphan.conns.empty() || !orphan.rings.empty() || orphan.counts.coll >= 0) {
    for (const auto& c : orphan.conns)
      orphan.nranks = std::max({orphan.nranks, c.from_rank + 1, c.to_rank + 1});
    for (const auto& [ch, order] : orphan.rings)
      orphan.nranks = std::max(orphan.nranks, static_cast<int>(SplitWhitespace(order).size()));
    add(0, "?");
    setup.communicators[index.FindOrAdd("?")].identified = false;
  }
  for (size_t c = 0; c < recs_of.size(); ++c) {
    if (recs_of[c].empty()) continue;
    NcclCommunicator& comm = setup.communicators[c];
    for (size_t r : recs_of[c]) {
      MergeRec(comms[r], comm);
      MoveAppend(comms[r].conns, comm.connections);
    }
  }
  return ids;
}

}  // namespace

void Builder::Finish() {
  Impl& im = *impl_;
  // Lines still waiting: the communicator last completed on their device, else the only
  // communicator of the process, else none.
  for (auto& st : im.states) {
    for (auto& [dev, ds] : st.devs) {
      if (ds.pending.empty()) continue;
      size_t target = ds.complete_comm != kNone ? ds.complete_comm
                      : st.comms.size() == 1    ? st.comms.front()
                                                : 0;
      CommRec& rec = im.comms[target];
      for (auto& p : ds.pending) {
        if (p.type == Pending::kConn)
          rec.conns.push_back(std::move(p.conn));
        else if (p.type == Pending::kRing)
          rec.rings[p.channel] = std::move(p.text),
          rec.ring_nchannels = std::max(rec.ring_nchannels, p.nchannels);
        else if (p.type == Pending::kTrees)
          rec.trees.push_back(std::move(p.text));
        else
          rec.counts = p.counts, rec.counts_ref = std::move(p.ref);
      }
      ds.pending.clear();
      ds.pending_conn_by_msg.clear();
    }
  }
  // Connections naming ranks outside their communicator were tied wrongly: keep them unowned.
  for (size_t i = 1; i < im.comms.size(); ++i) {
    CommRec& rec = im.comms[i];
    auto bad = [&](const NcclConnection& c) {
      return c.from_rank >= rec.nranks || c.to_rank >= rec.nranks;
    };
    for (auto& c : rec.conns)
      if (bad(c)) im.comms[0].conns.push_back(std::move(c));
    std::erase_if(rec.conns,
                  [&](const NcclConnection& c) { return c.transport.empty() || bad(c); });
  }
  for (const auto& o : im.overrides) {
    if (o.name != "NCCL_HOSTID") continue;
    for (auto& rec : im.comms)
      if (rec.rank.pid == o.pid && rec.rank.host == o.host) rec.rank.host_id = o.value;
  }
  NcclSetup setup;  // this file's alone
  std::vector<std::string> ids = MergeComms(im.comms, setup);
  EmitCallStreams(im.comms, im.procs, ids, path_, setup);
  // A bare banner in a file of one process belongs to it.
  for (auto& v : im.loose_versions) {
    if (v.host.empty() && v.pid == 0 && im.procs.size() == 1 && im.procs[0].version.empty()) {
      NcclProcess& p = im.procs[0];
      p.version = v.version;
      p.version_loc = v.ref.loc;
      p.version_line = v.ref.line;
      continue;
    }
    setup.loose_versions.push_back(std::move(v));
  }
  for (auto& p : im.procs) {
    p.file = path_;
    setup.processes.push_back(std::move(p));
  }
  for (auto& n : im.nets) setup.nets.push_back(std::move(n));
  MoveAppend(im.overrides, setup.overrides);
  MoveAppend(im.warnings, setup.warnings);
  MoveAppend(im.notes, setup.notes);
  setup.files.push_back(path_);
  setup.nccl_lines = nccl_lines_;
  SetupMerge merge(job_.nccl);
  merge.Add(std::move(setup));
  merge.Finish();
  job_.quality.Merge(im.quality);
}

}  // namespace commdx::ingest::nccl_log
