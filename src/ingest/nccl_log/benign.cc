// INFO lines of known kinds that carry nothing commdx keeps: plugin probing, topology dumps,
// tuning tables, proxy setup, per-call traces. Recognising them keeps the "unknown line" count
// in the input-quality table meaningful (it then means: a newer NCCL, or a garbled line).
//
//   vm:656:656 [0] NCCL INFO ENV/Plugin: Could not find: libnccl-env.so
//   vm:656:667 [0] NCCL INFO === System : maxBw 370.8 totalBw 370.8 ===
//   vm:656:668 [1] NCCL INFO  0 : GPU/0-60 GPU/0-70
//   vm:656:667 [0] NCCL INFO     AllReduce |     8.0/  61.1 |    16.5/ 180.6 | ...
//   vm:656:667 [0] NCCL INFO AllReduce: 8 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}
//   vm:656:668 [1] NCCL INFO New proxy send connection 47 from local rank 1, transport 0

#include "base/text.h"
#include "ingest/nccl_log/kinds.h"

namespace commdx::ingest::nccl_log {

namespace {

constexpr std::string_view kHeads[] = {
    "ENV/Plugin",       "PROFILER/Plugin",   "TUNER/Plugin",      "Comm config",
    "dlvsym failed",    "Failed to initialize NET plugin",      "Initialized NET plugin",
    "Assigned NET plugin",                   "Could not get speed",
    "RAS client",       "MNNVL ",            "Topology detection",
    "Could not find real path",              "TOPO/NET",          "ncclTopo",
    "=== System",       "=====",             "CPU/",              "+ ",
    "GPU/",             "NET/0",             "NIC/",              "NVS/",
    "Pattern ",         "Setting affinity",  "Bootstrap timings", "Init timings",
    "threadThresholds", "Connected all trees", "CC ",             "New proxy",
    "Connected to proxy", "[Proxy",          "ncclP2pSchedule",   "Allocated",
    "Using non-device net plugin",           "Using NCCL Low-latency",
    "NET/Socket : ",    "NET/Socket: ",      "NET/IB : ",         "NET/IB: ",
    "NET/IB :",         "Plugin Path",       "Loaded coll",       "Loaded net",
    "Failed to find ncclNetPlugin",          "Failed to find ncclCollNetPlugin",
    "KV Convert",       "Launch mode",       "CollNet ",          "Algorithm",
    "Protocol",         "Max NThreads",      "Call to connect returned",
    "ncclCommInitAll",  "ncclCommInitRank",  "ncclCommSplit",     "bootstrapSplit",
    "Using network",    "cudaDriverVersion", "Ring ",             "Tree ",
    "NCCL_",            "Channel ",          "Destroy",           "Abort",
    "Dumping",          "Symmetric",         "Trying to load",    "Enabled ",
    "Found ",           "Memory",
};

// Collective trace lines ("AllReduce: opCount 0 sendbuff ..", "AllReduce: 8 Bytes -> Algo RING")
// and tuning-table rows ("    AllReduce |  8.0/ 61.1 | ...").
bool IsCollectiveOrTuning(std::string_view s) {
  size_t colon = s.find(':');
  if (colon != std::string_view::npos && colon < 24 && colon > 2) {
    std::string_view name = s.substr(0, colon);
    bool word = true;
    for (char c : name) word = word && ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'));
    if (word && (StartsWith(s.substr(colon), ": opCount") || Contains(s, " Bytes -> Algo")))
      return true;
  }
  std::string_view t = TrimLeft(s);
  size_t bar = t.find(" |");
  return bar != std::string_view::npos && bar < 20;
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
  if (IsCollectiveOrTuning(s)) return Parsed::kYes;
  for (std::string_view h : kHeads)
    if (StartsWith(t, h)) return Parsed::kYes;
  return Parsed::kNo;
}

}  // namespace commdx::ingest::nccl_log
