// Private to builder.cc / builder_finish.cc: the per-file state of the NCCL log builder.
#pragma once

#include "base/diagnostics.h"

#include <deque>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ingest/nccl_log/builder.h"

namespace commdx::ingest::nccl_log {

constexpr size_t kNone = static_cast<size_t>(-1);

// A connection, ring or count line not yet tied to a communicator.
struct Pending {
  enum Type { kConn, kRing, kTrees, kCounts } type;
  NcclConnection conn;
  int channel = -1;
  int nchannels = -1;
  std::string text;
  ChannelCounts counts;
  NcclLineRef ref;
};

struct DevState {
  // The communicator that connection, ring and channel-count lines belong to: the latest Init
  // START (or pre-2.4 "comm .. rank .. nranks .."), or the initialised communicator of a later
  // COLL line: NCCL that connects at first use prints that call's connection lines after it.
  size_t start_comm = kNone;
  size_t complete_comm = kNone;  // latest Init COMPLETE
  std::vector<Pending> pending;
  std::unordered_map<std::string_view, size_t> pending_conn_by_msg;  // views into Impl::kept
  // COLL calls of this device still without their TUNING line: (comms index, calls index).
  std::deque<std::pair<size_t, size_t>> untuned;
};

struct ProcState {
  size_t proc = kNone;  // index into procs
  size_t net = kNone;   // index into nets
  std::map<int, DevState> devs;
  std::vector<size_t> comms;
  size_t last_call_comm = kNone;  // the communicator of the last COLL line, by pointer
};

struct CommRec {
  size_t proc = kNone;
  int dev = -1;
  std::string ptr;
  std::string comm_id;
  std::string parent, color;  // of a split without a commId of its own (CommInit)
  int nranks = 0;
  int nnodes = 0;
  NcclRankInfo rank;
  std::vector<NcclConnection> conns;
  std::unordered_map<std::string_view, uint32_t> conn_by_msg;  // views into Impl::kept
  std::map<int, std::string> rings;
  int ring_nchannels = -1;
  std::vector<std::string> trees;
  ChannelCounts counts;
  NcclLineRef counts_ref;
  int starts = 0;
  int completes = 0;
  std::vector<NcclLineRef> init_refs;
  std::vector<NcclCall> calls;  // COLL lines naming this pointer
  int call_nranks = 0;          // "[nranks=N]" of those lines
};


struct Builder::Impl {
  // Text kept for the maps keyed by views: a window of the file goes away before the file is
  // read (file_windows.h), so no view may point into it. A deque: its strings stay put.
  std::deque<std::string> kept;
  std::string_view Keep(std::string_view s) { return kept.emplace_back(s); }
  std::deque<NcclProcess> procs;
  std::deque<NcclNetInfo> nets;
  std::vector<ProcState> states;
  std::unordered_map<std::string, size_t> state_by_key;  // host '\n' pid -> states index
  // Every host of procs, as views of procs[].host (a deque: they stay put).
  std::unordered_set<std::string_view> hosts;
  std::set<size_t> host_lengths;  // the lengths of those hosts
  size_t last_state = kNone;
  int last_counted_dev = -2;          // device registered by the last CountNcclLine ...
  size_t last_counted_state = kNone;  // ... for this process
  std::vector<CommRec> comms;         // comms[0] is the orphan record ("?")
  std::map<std::pair<size_t, std::string>, size_t> comm_by_ptr;
  std::vector<NcclVersionSeen> loose_versions;
  std::vector<NcclEnvOverride> overrides;
  std::vector<NcclWarning> warnings;
  std::vector<NcclNote> notes;
  std::unordered_map<std::string, size_t> dedupe;  // overrides/warnings/notes by text
  // Processes ("host\npid") whose communicator abort or destroy has begun: the error returns
  // they print from then on are the teardown closing sockets, not a failure.
  std::set<std::string> teardown;
  Diagnostics quality;  // counted here, merged into job.quality at Finish

  ProcState& State(const LineInfo& li) {
    if (last_state != kNone) {
      const NcclProcess& p = procs[states[last_state].proc];
      if (p.pid == li.pid && p.host == li.host) return states[last_state];
    }
    std::string key = std::string(li.host) + '\n' + std::to_string(li.pid);
    auto [it, inserted] = state_by_key.emplace(key, states.size());
    if (inserted) {
      NcclProcess p;
      p.host = std::string(li.host);
      p.pid = li.pid;
      procs.push_back(std::move(p));
      hosts.insert(procs.back().host);
      host_lengths.insert(procs.back().host.size());
      ProcState st;
      st.proc = procs.size() - 1;
      states.push_back(std::move(st));
    }
    last_state = it->second;
    return states[last_state];
  }
};

// Writes the COLL call streams of every communicator record; ids[i] is the job-wide id of
// comms[i] (empty for records only COLL lines named).
void EmitCallStreams(std::vector<CommRec>& comms, const std::deque<NcclProcess>& procs,
                     const std::vector<std::string>& ids, const std::string& path,
                     NcclSetup& setup);

}  // namespace commdx::ingest::nccl_log
