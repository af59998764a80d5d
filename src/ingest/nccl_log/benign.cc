// INFO lines of known kinds that carry nothing commdx keeps: plugin probing, topology dumps,
// tuning tables, proxy setup, tuning-table rows. Recognising them keeps the "unknown line" count
// in the input-quality table meaningful (it then means: a newer NCCL, or a garbled line).
//
//   vm:656:656 [0] NCCL INFO ENV/Plugin: Could not find: libnccl-env.so
//   ubuntu2:321050:321050 [1] NCCL INFO ncclOsDlopen(libnccl-gin.so) failed: libnccl-gin.so: ...
//   vm:656:667 [0] NCCL INFO === System : maxBw 370.8 totalBw 370.8 ===
//   vm:656:668 [1] NCCL INFO  0 : GPU/0-60 GPU/0-70
//   vm:656:667 [0] NCCL INFO     AllReduce |     8.0/  61.1 |    16.5/ 180.6 | ...
//   vm:656:668 [1] NCCL INFO New proxy send connection 47 from local rank 1, transport 0

#include <vector>

#include "base/text.h"
#include "ingest/nccl_log/kinds.h"

namespace commdx::ingest::nccl_log {

namespace {

constexpr std::string_view kHeads[] = {
    "ENV/Plugin",
    "PROFILER/Plugin",
    "TUNER/Plugin",
    "Comm config",
    "dlvsym failed",
    "Failed to initialize NET plugin",
    "Initialized NET plugin",
    "Assigned NET plugin",
    "Could not get speed",
    "RAS client",
    "MNNVL ",
    "Topology detection",
    "Could not find real path",
    "TOPO/NET",
    "ncclTopo",
    "=== System",
    "=====",
    "CPU/",
    "+ ",
    "GPU/",
    "NET/0",
    "NIC/",
    "NVS/",
    "Pattern ",
    "Setting affinity",
    "Bootstrap timings",
    "Init timings",
    "threadThresholds",
    "Connected all trees",
    "CC ",
    "New proxy",
    "Connected to proxy",
    "[Proxy",
    "ncclP2pSchedule",
    "Allocated",
    "Using non-device net plugin",
    "Using NCCL Low-latency",
    "NET/Socket : ",
    "NET/Socket: ",
    "NET/IB : ",
    "NET/IB: ",
    "NET/IB :",
    "Plugin Path",
    "Loaded coll",
    "Loaded net",
    "Failed to find ncclNetPlugin",
    "Failed to find ncclCollNetPlugin",
    "KV Convert",
    "Launch mode",
    "CollNet ",
    "Algorithm",
    "Protocol",
    "Max NThreads",
    "ncclCommInitAll",
    "ncclCommInitRank",
    "ncclCommSplit",
    "bootstrapSplit",
    "Using network",
    "cudaDriverVersion",
    "Ring ",
    "Tree ",
    "NCCL_",
    "Channel ",
    "Destroy",
    "Abort",
    "Dumping",
    "Symmetric",
    "Trying to load",
    "Enabled ",
    "Found ",
    "Memory",
    "CUDA Dev ",
    "NET/Socket",
    "Nvls",
    "NVLS",
    // 2.29 / 2.30: every dlopen failure is logged before the "Could not find" line; the GIN and
    // RMA plugins (GPU-initiated networking) get the NET plugin's lines.
    "ncclOsDlopen(",
    "GIN/Plugin",
    "RMA/Plugin",
    "Assigned GIN plugin",
    "Assigned RMA plugin",
    "Loaded NVML",
    "RAS failed",
    // The Inspector profiler plugin logs through NCCL's logger: "NCCL Inspector Stopping Dump
    // thread" (ext-profiler/inspector, v2.28.9-1).
    "NCCL Inspector",
};

// Tuning-table rows ("    AllReduce |  8.0/ 61.1 | ...", "  Max NThreads |"). COLL and TUNING
// call lines are read by coll.cc.
bool IsTuningRow(std::string_view s) {
  for (size_t k = 0; k < s.size() && k < 24; ++k)
    if (s[k] == '|') return k > 0 && s[k - 1] == ' ';
  return false;
}

}  // namespace

Parsed ParseBenign(const LineInfo& li) {
  std::string_view s = li.msg;
  std::string_view t = TrimLeft(s);
  // GRAPH channel listing: " 0 : GPU/0-60 GPU/0-70", "10 : NET/0 GPU/1 NET/0".
  if (!t.empty() && IsDigit(t[0])) {
    size_t sep = t.find(" : ");
    if (sep != std::string_view::npos && sep < 4) return Parsed::kYes;
  }
  if (IsTuningRow(s)) return Parsed::kYes;
  if (t.empty()) return Parsed::kNo;
  // Heads indexed by their first character: a line is compared with a handful, not all.
  struct Index {
    std::vector<std::string_view> by_first[256];
    Index() {
      for (std::string_view h : kHeads) by_first[static_cast<unsigned char>(h[0])].push_back(h);
    }
  };
  static const Index kIndex;
  for (std::string_view h : kIndex.by_first[static_cast<unsigned char>(t[0])])
    if (StartsWith(t, h)) return Parsed::kYes;
  return Parsed::kNo;
}

}  // namespace commdx::ingest::nccl_log
