// What NCCL debug logs say about how a job's communicators were set up: processes, versions,
// communicators and their ranks, NICs, channels, the transport of each peer connection,
// environment overrides and warnings. Format-free: the NCCL log importer fills it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"

namespace commdx {

// A process that wrote NCCL lines, identified by (host, pid).
struct NcclProcess {
  std::string host;
  int64_t pid = 0;
  std::string version;  // "2.28.9" (from "NCCL version 2.28.9+cuda13.0"), empty if not seen
  SourceLoc version_loc;
  std::string file;     // log file it was read from (first)
};

enum class TransportKind {
  kUnknown,
  kP2P,        // P2P/direct pointer, P2P/IPC, P2P/CUMEM, with /read or /CE variants
  kShm,        // SHM/direct/direct, "direct shared memory"
  kNetIB,      // NET/IB (Verbs, RoCE)
  kNetSocket,  // NET/Socket
  kNetOther,   // NET/<plugin>, e.g. NET/AWS Libfabric, NET/IBext
  kCollNet,
  kNvls,
};
const char* TransportKindName(TransportKind k);

// One "Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read" line (also ring/tree connection lines).
struct NcclConnection {
  int channel = -1;
  int from_rank = -1;
  int to_rank = -1;
  int from_dev = -1;
  int to_dev = -1;
  std::string transport;  // as written, e.g. "P2P/CUMEM/read", "NET/IB/0/GDRDMA"
  TransportKind kind = TransportKind::kUnknown;
  bool gdr = false;       // GDRDMA in the transport string
  SourceLoc loc;
};

struct NcclRankInfo {
  int rank = -1;
  int cuda_dev = -1;
  std::string bus_id;  // "0000:00:06.0" normalised lower-case
  std::string host;
  int64_t pid = 0;
  SourceLoc loc;
};

struct NcclCommunicator {
  std::string comm_id;  // "0x5a1b2c" (commId) or the comm pointer where no commId is logged
  int nranks = 0;
  int nnodes = 0;
  std::map<int, NcclRankInfo> ranks;  // by rank
  int channels = 0;                   // number of channels seen ("Channel xx/NN" or "NN coll channels")
  std::vector<NcclConnection> connections;
  std::vector<std::string> rings;     // "Channel 00/02 :    0   1" ring orders, as text
  std::vector<std::string> trees;
  bool init_complete = false;
};

// NIC / network facts of one process.
struct NcclNetInfo {
  std::string host;
  int64_t pid = 0;
  std::string network;             // "IB", "Socket", "AWS Libfabric", ...
  std::vector<std::string> nics;   // "mlx5_0:1/IB", "eth0:10.0.0.1<0>"
  std::optional<bool> gdr_enabled; // from "GPU Direct RDMA Enabled/Disabled" lines
  SourceLoc loc;
};

struct NcclEnvOverride {
  std::string name;   // "NCCL_P2P_DISABLE"
  std::string value;  // "1"
  std::string host;
  int64_t pid = 0;
  SourceLoc loc;
};

struct NcclWarning {
  std::string text;   // message after "NCCL WARN"
  std::string host;
  int64_t pid = 0;
  int cuda_dev = -1;
  std::string source_file;  // "misc/shmutils.cc:112" where logged
  SourceLoc loc;
};

// Any other INFO line worth keeping as evidence (e.g. "NVLS multicast support is not available").
struct NcclNote {
  std::string kind;  // e.g. "nvls_unavailable", "p2p_disabled_topology"
  std::string text;
  std::string host;
  int64_t pid = 0;
  SourceLoc loc;
};

struct NcclSetup {
  std::vector<NcclProcess> processes;
  std::vector<NcclCommunicator> communicators;
  std::vector<NcclNetInfo> nets;
  std::vector<NcclEnvOverride> overrides;
  std::vector<NcclWarning> warnings;
  std::vector<NcclNote> notes;
  std::vector<std::string> files;  // log files read
  uint64_t nccl_lines = 0;         // lines recognised as NCCL output

  bool empty() const { return files.empty(); }
};

}  // namespace commdx
