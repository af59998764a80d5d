#include "ingest/nccl_log/setup_merge.h"

#include <algorithm>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ingest/move_append.h"

namespace commdx::ingest::nccl_log {

namespace {

// What makes two connection lines of one communicator the same connection.
bool SameConnection(const NcclConnection& a, const NcclConnection& b) {
  return a.channel == b.channel && a.from_rank == b.from_rank && a.to_rank == b.to_rank &&
         a.direction == b.direction && a.pid == b.pid && a.transport == b.transport &&
         a.host == b.host;
}

size_t Mix(size_t h, size_t v) { return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)); }

size_t ConnectionHash(const NcclConnection& c) {
  size_t h = std::hash<std::string_view>()(c.transport);
  h = Mix(h, std::hash<std::string_view>()(c.host));
  h = Mix(h, static_cast<size_t>(c.pid));
  h = Mix(h, static_cast<size_t>(c.channel) * 31 + static_cast<size_t>(c.direction));
  h = Mix(h, (static_cast<size_t>(static_cast<uint32_t>(c.from_rank)) << 32) ^
                 static_cast<uint32_t>(c.to_rank));
  return h;
}

// A rank's record from `from` replaces the one held only when that one says nothing (the rule of
// the per-file merge: the first record with its line wins).
void MergeRanks(std::map<int, NcclRankInfo>& from, std::map<int, NcclRankInfo>& into) {
  auto hint = into.begin();
  for (auto& [rank, info] : from) {
    hint = into.lower_bound(rank);
    if (hint == into.end() || hint->first != rank) {
      hint = into.emplace_hint(hint, rank, std::move(info));
      continue;
    }
    if (hint->second.rank < 0 || hint->second.ref.line.empty()) hint->second = std::move(info);
  }
}

// Everything of a communicator but its connections.
void MergeFacts(NcclCommunicator& from, NcclCommunicator& into) {
  if (!from.identified) into.identified = false;
  into.nranks = std::max(into.nranks, from.nranks);
  into.nnodes = std::max(into.nnodes, from.nnodes);
  MergeRanks(from.ranks, into.ranks);
  into.ring_channels = std::max(into.ring_channels, from.ring_channels);
  if (into.rings.empty()) into.rings = std::move(from.rings);
  if (into.trees.empty()) into.trees = std::move(from.trees);
  if (from.coll_channels > into.coll_channels) {
    into.coll_channels = from.coll_channels;
    into.channels_ref = std::move(from.channels_ref);
  }
  into.nvls_channels = std::max(into.nvls_channels, from.nvls_channels);
  into.collnet_channels = std::max(into.collnet_channels, from.collnet_channels);
  into.p2p_channels = std::max(into.p2p_channels, from.p2p_channels);
  into.init_start += from.init_start;
  into.init_complete += from.init_complete;
  for (auto& r : from.init_refs)
    if (into.init_refs.size() < 8) into.init_refs.push_back(std::move(r));
}

}  // namespace

struct SetupMerge::Index {
  struct Comm {
    bool indexed = false;  // `connections` holds every connection of the communicator
    bool touched = false;  // connections added since the last Finish
    std::unordered_multimap<size_t, size_t> connections;  // ConnectionHash -> position
  };
  std::unordered_map<std::string, size_t> comm_by_id;
  std::vector<Comm> comms;  // parallel to into_.communicators
  // Processes with a host, by host '\n' pid.
  std::unordered_map<std::string, size_t> process_by_key;

  static std::string ProcessKey(const NcclProcess& p) {
    return p.host + '\n' + std::to_string(p.pid);
  }

  void AddConnections(std::vector<NcclConnection>& from, NcclCommunicator& comm, Comm& state) {
    if (!state.indexed) {
      for (size_t i = 0; i < comm.connections.size(); ++i)
        state.connections.emplace(ConnectionHash(comm.connections[i]), i);
      state.indexed = true;
    }
    for (auto& c : from) {
      size_t h = ConnectionHash(c);
      auto [lo, hi] = state.connections.equal_range(h);
      auto same = std::find_if(
          lo, hi, [&](const auto& kv) { return SameConnection(comm.connections[kv.second], c); });
      if (same != hi) {
        comm.connections[same->second].count += c.count;
        continue;
      }
      state.connections.emplace(h, comm.connections.size());
      comm.connections.push_back(std::move(c));
    }
    if (!from.empty()) state.touched = true;
  }
};

SetupMerge::SetupMerge(NcclSetup& into) : into_(into), index_(new Index) {
  Index& ix = *index_;
  ix.comms.resize(into.communicators.size());
  for (size_t i = 0; i < into.communicators.size(); ++i)
    ix.comm_by_id.emplace(into.communicators[i].comm_id, i);
  for (size_t i = 0; i < into.processes.size(); ++i)
    if (!into.processes[i].host.empty())
      ix.process_by_key.emplace(Index::ProcessKey(into.processes[i]), i);
}

SetupMerge::~SetupMerge() = default;

void SetupMerge::Add(NcclSetup&& part) {
  Index& ix = *index_;
  for (auto& comm : part.communicators) {
    auto [it, inserted] = ix.comm_by_id.emplace(comm.comm_id, into_.communicators.size());
    if (inserted) {
      into_.communicators.emplace_back().comm_id = comm.comm_id;
      ix.comms.emplace_back();
    }
    NcclCommunicator& into = into_.communicators[it->second];
    MergeFacts(comm, into);
    ix.AddConnections(comm.connections, into, ix.comms[it->second]);
  }
  for (auto& p : part.processes) {
    if (p.host.empty()) {
      into_.processes.push_back(std::move(p));
      continue;
    }
    auto [it, inserted] = ix.process_by_key.emplace(Index::ProcessKey(p), into_.processes.size());
    if (inserted) {
      into_.processes.push_back(std::move(p));
      continue;
    }
    NcclProcess& q = into_.processes[it->second];
    if (q.version.empty()) q.version = p.version, q.version_loc = p.version_loc;
    if (q.git_version.empty()) q.git_version = std::move(p.git_version);
    if (q.plugins.empty()) q.plugins = std::move(p.plugins);
  }
  MoveAppend(part.loose_versions, into_.loose_versions);
  MoveAppend(part.nets, into_.nets);
  MoveAppend(part.overrides, into_.overrides);
  MoveAppend(part.warnings, into_.warnings);
  MoveAppend(part.notes, into_.notes);
  MoveAppend(part.call_streams, into_.call_streams);
  MoveAppend(part.files, into_.files);
  into_.nccl_lines += part.nccl_lines;
}

void SetupMerge::Finish() {
  Index& ix = *index_;
  for (size_t c = 0; c < ix.comms.size(); ++c) {
    Index::Comm& state = ix.comms[c];
    if (!state.touched) continue;
    auto& conns = into_.communicators[c].connections;
    std::stable_sort(conns.begin(), conns.end(),
                     [](const NcclConnection& a, const NcclConnection& b) {
                       if (a.ref.loc.file != b.ref.loc.file) return a.ref.loc.file < b.ref.loc.file;
                       return a.ref.loc.line < b.ref.loc.line;
                     });
    state = Index::Comm{};  // positions changed: indexed again when next touched
  }
}

}  // namespace commdx::ingest::nccl_log
