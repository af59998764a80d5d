// Collects the facts of one NCCL log file while it is read line by line, and writes them into the
// Job's NcclSetup when the file ends. Lines without a communicator pointer (connections, rings,
// channel counts) are tied to the communicator being initialised on the same process and device:
// the latest "Init START" (2.18.3+), or else the next "Init COMPLETE" (older versions print the
// connections before COMPLETE).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/file.h"
#include "ingest/nccl_log/line.h"
#include "model/job.h"

namespace commdx::ingest::nccl_log {

// A communicator init line: "comm 0x.. rank R nranks N cudaDev D nvmlDev P busId B commId C -
// Init START|COMPLETE" (fields missing in older versions stay empty / -1).
struct CommInit {
  std::string_view ptr;  // "0x55fa4b963350"
  int rank = -1;
  int nranks = -1;
  int cuda_dev = -1;
  int nvml_dev = -1;
  std::string_view bus_id;
  std::string_view comm_id;
  // ncclCommSplit / ncclCommShrink: the parent communicator's pointer and the split's color
  // (every member of one new communicator passed the same color).
  std::string_view parent;
  std::string_view color;
  bool start = false;     // "Init START"
  bool complete = false;  // "Init COMPLETE" (false for the pre-2.4 "comm 0x.. rank 0 nranks 2")
};

// "comm 0x.. rank 7 nRanks 16 nNodes 2 localRanks 8 localRank 7 MNNVL 0" (2.20+).
struct CommNodes {
  std::string_view ptr;
  int rank = -1;
  int nranks = -1;
  int nnodes = -1;
  int local_rank = -1;
};

// "16 coll channels, 0 collnet channels, 16 nvls channels, 16 p2p channels, 2 p2p channels per
// peer" and its older shorter forms; -1 where not logged.
struct ChannelCounts {
  int coll = -1;
  int collnet = -1;
  int nvls = -1;
  int p2p = -1;
};

class Builder {
 public:
  // `path`: the file the lines come from, as the user gave it.
  Builder(std::string path, Job& job);
  ~Builder();

  // Facts of the process that wrote `li` (created on first use).
  NcclProcess& Process(const LineInfo& li);
  NcclNetInfo& Net(const LineInfo& li);
  NcclLineRef Ref(const LineInfo& li) const;
  SourceLoc Loc(const LineInfo& li) const;
  const std::string& path() const { return path_; }

  // Communicator-scoped facts.
  void AddCommInit(const LineInfo& li, const CommInit& init);
  void AddCommNodes(const LineInfo& li, const CommNodes& nodes);
  void AddConnection(const LineInfo& li, NcclConnection conn);
  // True (and counted) when the same connection line of the same communicator was already seen:
  // lets the parser skip the work for the repeated lines of long logs.
  bool CountDuplicateConnection(const LineInfo& li);
  void AddRingOrder(const LineInfo& li, int channel, int nchannels, std::string_view order);
  void AddTrees(const LineInfo& li, std::string_view body);
  void AddChannelCounts(const LineInfo& li, const ChannelCounts& counts);

  // COLL lines name their communicator by pointer; TUNING lines (rank 0 only) give the algorithm
  // of the oldest call of that process and device of the same op and size still without one.
  void AddCall(const LineInfo& li, std::string_view comm_ptr, int nranks, const NcclCall& call);
  void AddTuning(const LineInfo& li, CollectiveType type, uint64_t bytes, NcclAlgo algo,
                 NcclProto proto);

  // Process-scoped facts.
  void SetVersion(const LineInfo& li, std::string_view full);
  void AddOverride(const LineInfo& li, std::string_view name, std::string_view value,
                   bool from_command_line);
  void AddWarning(const LineInfo& li, std::string_view text, bool from_framework);
  void AddNote(const LineInfo& li, std::string_view kind, std::string_view text, int code = -1);
  // An external plugin of `kind` this process loaded: its name or its library path (either may
  // be empty; the two come on separate lines and fill one entry per kind).
  void AddPlugin(const LineInfo& li, NcclPluginKind kind, std::string_view name,
                 std::string_view path);
  // "comm 0x.. - Abort START" / "Destroy START": this process is tearing its communicators down.
  void MarkTeardown(const LineInfo& li);
  bool InTeardown(const LineInfo& li) const;

  // Input quality, counted locally and written to job.quality at Finish.
  void Quality(QualityId id, DiagSeverity severity, std::string_view message, const LineInfo& li);
  // A member of a family of ids ("nccl_log.malformed_" + a line kind).
  void Quality(QualityFamily family, std::string_view name, DiagSeverity severity,
               std::string_view message, const LineInfo& li);

  // The NIC list a following continuation line ("[1]br-05ab815fa14e:172.19.0.1<0>") extends.
  NcclNetInfo* open_nic_list = nullptr;  // stable: nets live in a deque
  std::string open_nic_role;
  uint64_t open_nic_line = 0;

  // The host of a process seen so far that `glued` ends with, longest first: the process
  // (host, `pid`) itself, else (any_pid) any process's host; "" if none. `glued` is a host name
  // with another process's output possibly glued before it.
  std::string_view KnownHostSuffix(std::string_view glued, int64_t pid, bool any_pid) const;

  // Counts a recognised NCCL line and registers its process and device.
  void CountNcclLine(const LineInfo& li);
  void Finish();

 private:
  struct Impl;
  std::string path_;
  Job& job_;
  uint64_t nccl_lines_ = 0;
  std::unique_ptr<Impl> impl_;
};

}  // namespace commdx::ingest::nccl_log
