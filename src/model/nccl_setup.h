// What NCCL debug logs say about how a job's communicators were set up: processes, versions,
// communicators and their ranks, NICs, channels, the transport of each peer connection,
// environment overrides and warnings. Format-free: the NCCL log importer fills it.
//
// Every fact keeps the place it was read from (`loc`) and the text of that line (`line`), so
// that findings can cite their evidence.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "model/environment.h"
#include "model/nccl_calls.h"

namespace commdx {

// A log line that proves something: where, and its text (trimmed, capped in length).
struct NcclLineRef {
  SourceLoc loc;
  std::string line;
};

// An external plugin library NCCL loaded in one process, from its log:
//   "Successfully loaded external profiler plugin /x/libnccl-profiler-inspector.so" (the path)
//   "PROFILER/Plugin: Loaded Inspector (v5)", "TUNER/Plugin: Using nccl_ofi_tuner (v3)" (the name)
struct NcclLoadedPlugin {
  NcclPluginKind kind = NcclPluginKind::kOther;
  std::string name;  // as the plugin names itself, "" if not logged
  std::string path;  // the library NCCL opened, "" if not logged
  NcclLineRef ref;   // the first line that showed it
};

// A process that wrote NCCL lines, identified by (host, pid). Lines whose prefix was stripped
// belong to the process with empty host and pid 0 of their file.
struct NcclProcess {
  std::string host;
  int64_t pid = 0;
  std::string version;       // "2.28.9" (from "NCCL version 2.28.9+cuda13.0"), empty if not seen
  std::string version_full;  // "2.28.9+cuda13.0"
  SourceLoc version_loc;
  std::string version_line;
  // "NCCL git version HEAD 1933fdd-dirty" (2.29+): the branch and commit NCCL was built from.
  std::string git_version;
  int cuda_driver = 0;                    // "cudaDriverVersion 12040" -> 12040
  std::string file;                       // log file it was read from (first)
  std::vector<int> devices;               // [dev] values seen, sorted
  std::vector<NcclLoadedPlugin> plugins;  // external plugins NCCL loaded, one per kind
};

// An "NCCL version X" banner that could not be tied to one process (bare stdout line in a file
// holding several processes, or a framework's error message).
struct NcclVersionSeen {
  std::string version;
  std::string host;
  int64_t pid = 0;
  NcclLineRef ref;
};

enum class TransportKind {
  kUnknown,
  kP2P,        // P2P/direct pointer, P2P/IPC, P2P/CUMEM, with /read or /CE variants
  kShm,        // SHM/direct/direct, "direct shared memory"
  kNetIB,      // NET/IB (Verbs, RoCE)
  kNetSocket,  // NET/Socket
  kNetOther,   // NET/<plugin>, e.g. NET/AWS Libfabric, NET/IBext_v8
  kCollNet,
  kNvls,
};
const char* TransportKindName(TransportKind k);

// Classifies a transport as written after "via": "P2P/CUMEM/read", "NET/IB/0/GDRDMA", ...
TransportKind ClassifyTransport(std::string_view via);

// Short display form of a transport for the rank x rank matrix: "P2P/CUMEM", "P2P/IPC",
// "P2P/direct", "SHM", "NET/IB+GDR", "NET/IB", "NET/Socket", "NET/IBext_v8+GDR", ...
std::string TransportShortName(std::string_view via);

// One "Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read" line (also the older "Ring 00 : ..."
// connection lines). Identical lines of one communicator are kept once, with a count.
struct NcclConnection {
  int channel = -1;
  int from_rank = -1;
  int to_rank = -1;
  std::string from_id;  // text in brackets: cudaDev (<= 2.4), busId (2.5 - 2.17), nvmlDev (2.18+)
  std::string to_id;
  std::string transport;  // as written, e.g. "P2P/CUMEM/read", "NET/IB/0/GDRDMA"
  TransportKind kind = TransportKind::kUnknown;
  bool gdr = false;     // GDRDMA in the transport string
  int net_dev = -1;     // NET/<net>/<dev>: the NIC index
  int proxy_rank = -1;  // NET/<net>/<dev>(<proxyRank>): PXN
  int direction = 0;    // 0 none, 1 [send], 2 [receive]
  std::string host;     // host of the process that printed the line
  int64_t pid = 0;
  uint32_t count = 1;
  NcclLineRef ref;
};

struct NcclRankInfo {
  int rank = -1;
  int cuda_dev = -1;
  int nvml_dev = -1;
  std::string bus_id;  // as logged, lower-case hex: "1a000", "60"
  std::string host;
  // NCCL_HOSTID as the process's log echoes it ("NCCL_HOSTID set by environment to X"): NCCL
  // takes it instead of the host name to tell nodes apart, so ranks of one host name with
  // different ids are different nodes to NCCL (and no P2P/SHM joins them). Empty if not set.
  std::string host_id;
  int64_t pid = 0;
  int local_rank = -1;
  NcclLineRef ref;
};

struct NcclCommunicator {
  // "0x88a86db28df0013a" (commId, 2.17+); "0x88a86db28df0013a/color 7" for a split or shrink
  // that logs no commId of its own (its parent's commId and its color); "nranks=8#0" where
  // neither is logged (the k-th communicator of that size on one device of a process); "?" for
  // lines that could not be tied to any communicator (excerpts without init lines).
  std::string comm_id;
  bool identified = true;
  int nranks = 0;
  int nnodes = 0;                     // from "nRanks N nNodes K" (2.20+), 0 if not logged
  std::map<int, NcclRankInfo> ranks;  // by rank
  int ring_channels = 0;              // "Channel xx/NN :" denominator (or count of ring lines)
  int coll_channels = 0;              // "N coll channels, ..." (max over ranks)
  int nvls_channels = -1;             // -1 not logged
  int collnet_channels = -1;
  int p2p_channels = -1;
  NcclLineRef channels_ref;  // a line that shows the channel count
  std::vector<NcclConnection> connections;
  std::vector<std::string> rings;  // "0 1 2 3" ring orders, one per channel, as text
  std::vector<std::string> trees;  // "Trees [0] ..." bodies, as text
  int init_start = 0;              // Init START lines seen
  int init_complete = 0;           // Init COMPLETE lines seen
  std::vector<NcclLineRef> init_refs;
};

// A network interface / device NCCL listed. role: "bootstrap", "socket" (NET/Socket list),
// "ib" (NET/IB list), "oob" (the IB out-of-band interface).
struct NcclNic {
  std::string role;
  int index = -1;
  std::string name;        // "eth0", "mlx5_0"
  std::string address;     // "10.0.0.1", "fe80::1%ip6tnl0"; empty for IB devices
  int port = -1;           // IB port
  std::string link_layer;  // "IB", "RoCE" for IB devices
};

// GPUDirect RDMA decisions: "GPU Direct RDMA Enabled|Disabled for HCA 0 'mlx5_0' (no module)",
// "GPU Direct RDMA Disabled for GPU 1a000 / HCA 0 (distance 5 > 2)".
struct NcclGdrStatus {
  bool enabled = false;
  std::string net;  // "IB", "Socket", ...
  std::string hca;
  std::string reason;  // "(no module)", "(distance 5 > 2)"
  NcclLineRef ref;
};

// NIC / network facts of one process.
struct NcclNetInfo {
  std::string host;
  int64_t pid = 0;
  std::string network;  // from "Using network X": "IB", "Socket", "AWS Libfabric", ...
  NcclLineRef network_ref;
  std::string plugin;  // "internal", "NCCL RDMA Plugin v8", ...
  NcclLineRef plugin_ref;
  std::string ofi_provider;  // aws-ofi-nccl "Selected Provider is X"
  NcclLineRef ofi_ref;
  std::vector<NcclNic> nics;
  std::vector<NcclLineRef> nic_refs;  // the "Using [0]..." lines
  bool ib_no_device = false;          // "NET/IB : No device found."
  NcclLineRef ib_no_device_ref;
  std::vector<NcclGdrStatus> gdr;
  std::optional<bool> ring_gdr;  // "Connected all rings, use ring PXN 0 GDR 1" (2.24+)
  bool dmabuf = false;           // "DMA-BUF is available on GPU device 0"
};

struct NcclEnvOverride {
  std::string name;   // "NCCL_P2P_DISABLE"
  std::string value;  // "1"
  std::string host;
  int64_t pid = 0;
  bool from_command_line = false;  // seen in a pasted command ("-x NCCL_X=1"), not echoed by NCCL
  NcclLineRef ref;
};

struct NcclWarning {
  std::string text;  // message after "NCCL WARN"
  std::string host;
  int64_t pid = 0;
  int cuda_dev = -1;
  std::string source_file;      // "misc/shmutils.cc:112" where logged
  int64_t time_ns = -1;         // from a timestamp prefix, ns since the epoch; -1 if none
  bool from_framework = false;  // text after a framework's "Last error:" line
  uint32_t count = 1;           // identical warnings of one process are kept once
  NcclLineRef ref;
};

// Any other line worth keeping as evidence. Kinds: "nvls_unavailable", "nvls_available",
// "p2p_disabled_connected" (P2P is disabled between connected GPUs), "p2p_enable_failed",
// "max_shared_mem", "error_return" (text "-> N"), "teardown_error_return" (the same, printed
// after the process's "Abort START" / "Destroy START": sockets closing), "nccl_error_code"
// (framework "ncclSystemError: ..."), "graph_fallback", "acs_srcvalid" (pasted lspci ACSCtl:
// SrcValid+), "connect_retry", "topology_unreadable".
struct NcclNote {
  std::string kind;
  std::string text;
  std::string host;
  int64_t pid = 0;
  int cuda_dev = -1;
  int code = -1;  // ncclResult_t for error_return / nccl_error_code
  uint32_t count = 1;
  NcclLineRef ref;
};

struct NcclSetup {
  std::vector<NcclProcess> processes;
  std::vector<NcclVersionSeen> loose_versions;
  std::vector<NcclCommunicator> communicators;
  std::vector<NcclNetInfo> nets;  // one per process that logged network facts
  std::vector<NcclEnvOverride> overrides;
  std::vector<NcclWarning> warnings;
  std::vector<NcclNote> notes;
  std::vector<NcclCallStream> call_streams;  // COLL lines, one stream per communicator and rank
  std::vector<std::string> files;            // log files read
  uint64_t nccl_lines = 0;                   // lines recognised as NCCL output

  bool empty() const { return files.empty(); }

  const NcclProcess* FindProcess(std::string_view host, int64_t pid) const;
  const NcclNetInfo* FindNet(std::string_view host, int64_t pid) const;
  // Notes of one kind, in log order.
  std::vector<const NcclNote*> NotesOfKind(std::string_view kind) const;
};

}  // namespace commdx
