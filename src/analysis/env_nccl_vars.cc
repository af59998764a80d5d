// The table behind `commdx env`'s variable verdicts. Facts from NCCL's environment-variable
// documentation and PyTorch's ProcessGroupNCCL docs; numbers measured on 2xH200 (captures/).
#include "analysis/env_nccl_vars.h"

#include <algorithm>
#include <vector>

#include "base/text.h"

namespace commdx::analysis {

namespace {

struct Context {
  bool ib = false;
  bool nvlink = false;
  int gpus = 0;
  // The NCCL the job ran, "2.28.9": the library a plain dlopen gives (env probe), else the
  // version NCCL's own log printed; empty when neither says.
  std::string nccl_loaded;
  std::string nccl_loaded_from;  // "the library found here", "the NCCL log"
};

bool Off(std::string_view v) { return v == "0" || ToLower(v) == "false" || v.empty(); }

VarVerdict V(VarRisk r, std::string what) { return {r, std::move(what), true}; }

using Rule = VarVerdict (*)(std::string_view value, const Context& c);

struct Entry {
  const char* name;
  Rule rule;
};

VarVerdict P2pDisable(std::string_view v, const Context& c) {
  if (Off(v)) return V(VarRisk::kNeutral, "P2P stays enabled (default)");
  return V(VarRisk::kHarmful,
           std::string("disables P2P between GPUs: traffic goes through host memory (SHM)") +
               (c.nvlink ? "; NVLink is not used (346 -> 28 GB/s measured on 2xH200)" : ""));
}
VarVerdict ShmDisable(std::string_view v, const Context&) {
  if (Off(v)) return V(VarRisk::kNeutral, "SHM transport stays enabled (default)");
  return V(VarRisk::kRisky,
           "disables the shared-memory transport: where P2P is not possible, GPUs of "
           "one node talk over the network (3.9 GB/s over sockets measured)");
}
VarVerdict IbDisable(std::string_view v, const Context& c) {
  if (Off(v)) return V(VarRisk::kNeutral, "InfiniBand/RoCE stays enabled (default)");
  return c.ib ? V(VarRisk::kHarmful,
                  "disables InfiniBand/RoCE although RDMA NICs are present: "
                  "inter-node traffic falls back to TCP sockets")
              : V(VarRisk::kNeutral, "disables InfiniBand/RoCE (none present here)");
}
VarVerdict P2pLevel(std::string_view v, const Context& c) {
  std::string u = ToLower(v);
  if (u == "loc" || u == "0")
    return V(VarRisk::kHarmful, "P2P level LOC: P2P never used (like NCCL_P2P_DISABLE=1)");
  if (u == "nvl" && !c.nvlink)
    return V(VarRisk::kHarmful, "P2P only over NVLink, and there is none: PCIe P2P is off");
  return V(VarRisk::kRisky,
           "overrides how far apart GPUs may be for P2P; NCCL's default depends on the CPU");
}
VarVerdict GdrLevel(std::string_view v, const Context& c) {
  std::string u = ToLower(v);
  if ((u == "loc" || u == "0") && c.ib)
    return V(VarRisk::kHarmful,
             "disables GPUDirect RDMA: network traffic is staged through host memory");
  return V(c.ib ? VarRisk::kRisky : VarRisk::kNeutral,
           "overrides how close NIC and GPU must be for GPUDirect RDMA");
}
VarVerdict Channels(std::string_view v, const Context&) {
  auto n = ParseInt(v);
  if (n && *n <= 2)
    return V(VarRisk::kHarmful, "caps NCCL at " + std::string(v) +
                                    " channel(s): bandwidth is capped "
                                    "(1 channel: 21 GB/s vs 346 measured on 2xH200)");
  if (n && *n < 8)
    return V(VarRisk::kRisky, "caps the number of channels below what fast links need");
  return V(VarRisk::kNeutral, "channel cap high enough not to limit bandwidth");
}
VarVerdict Net(std::string_view v, const Context& c) {
  if (ToLower(v) == "socket" && c.ib)
    return V(VarRisk::kHarmful, "forces TCP sockets although RDMA NICs are present");
  return V(VarRisk::kRisky, "forces a network plugin/transport");
}
VarVerdict SocketIf(std::string_view v, const Context&) {
  std::string u = ToLower(v);
  if (u == "lo" || StartsWith(u, "docker") || StartsWith(u, "virbr") || StartsWith(u, "veth"))
    return V(VarRisk::kHarmful,
             "sockets on a loopback/virtual interface: other nodes cannot be reached");
  return V(VarRisk::kNeutral, "chooses the interface for bootstrap and socket traffic");
}
VarVerdict Risky(std::string_view, const Context&) { return V(VarRisk::kRisky, ""); }
VarVerdict Neutral(std::string_view, const Context&) { return V(VarRisk::kNeutral, ""); }
VarVerdict Debug(std::string_view v, const Context&) {
  if (ToLower(v) == "trace") return V(VarRisk::kHarmful, "TRACE logging slows every operation");
  return V(VarRisk::kNeutral, "logging (INFO costs only at init)");
}
VarVerdict BuffSize(std::string_view v, const Context&) {
  auto n = ParseInt(v);
  if (n && *n < (1 << 20))
    return V(VarRisk::kRisky, "buffers below 1 MiB (default 4 MiB) cut bandwidth");
  return V(VarRisk::kNeutral, "buffer size per channel");
}
VarVerdict Nvls(std::string_view v, const Context& c) {
  if (!Off(v)) return V(VarRisk::kNeutral, "NVLink SHARP allowed (default where supported)");
  return V(c.nvlink && c.gpus >= 4 ? VarRisk::kRisky : VarRisk::kNeutral,
           "turns NVLink SHARP off (on NVSwitch H100/H200 boxes all_reduce then peaks near 370 "
           "instead of ~480 GB/s)");
}
VarVerdict LaunchBlocking(std::string_view v, const Context&) {
  if (Off(v)) return V(VarRisk::kNeutral, "asynchronous launches (default)");
  return V(VarRisk::kHarmful,
           "every CUDA launch waits for completion: no overlap of communication and compute");
}
VarVerdict MaxConnections(std::string_view v, const Context&) {
  if (v == "1")
    return V(VarRisk::kRisky,
             "one hardware queue for all streams: NCCL kernels serialise with compute "
             "(set on purpose by Megatron-style tensor parallelism)");
  return V(VarRisk::kNeutral, "hardware work queues per device");
}
// NCCL_VERSION is not read by NCCL: container images (NGC's) set it to the NCCL they ship. A
// process that loads another NCCL (a pip wheel's, PyTorch's bundled one) runs that one.
VarVerdict ImageVersion(std::string_view v, const Context& c) {
  if (c.nccl_loaded.empty() || v.empty() || StartsWith(v, c.nccl_loaded) ||
      StartsWith(c.nccl_loaded, v))
    return V(VarRisk::kNeutral, "not read by NCCL: the container image's record of its NCCL");
  return V(VarRisk::kNeutral, "not read by NCCL: the image ships NCCL " + std::string(v) +
                                  ", but NCCL " + c.nccl_loaded + " is what runs (" +
                                  c.nccl_loaded_from +
                                  "): another libnccl.so.2 is found first (a pip wheel's, "
                                  "PyTorch's bundled one or LD_LIBRARY_PATH)");
}
VarVerdict TorchOn(std::string_view v, const Context&) {
  return Off(v) ? V(VarRisk::kNeutral, "off") : V(VarRisk::kRisky, "");
}

const Entry kTable[] = {
    {"NCCL_P2P_DISABLE", P2pDisable},
    {"NCCL_SHM_DISABLE", ShmDisable},
    {"NCCL_IB_DISABLE", IbDisable},
    {"NCCL_P2P_LEVEL", P2pLevel},
    {"NCCL_NET_GDR_LEVEL", GdrLevel},
    {"NCCL_MAX_NCHANNELS", Channels},
    {"NCCL_MAX_CTAS", Channels},
    {"NCCL_NET", Net},
    {"NCCL_SOCKET_IFNAME", SocketIf},
    {"NCCL_ALGO", Risky},
    {"NCCL_PROTO", Risky},
    {"NCCL_NTHREADS", Risky},
    {"NCCL_BUFFSIZE", BuffSize},
    {"NCCL_LAUNCH_MODE", Risky},
    {"NCCL_IGNORE_CPU_AFFINITY", TorchOn},
    {"NCCL_TOPO_FILE", Risky},
    {"NCCL_GRAPH_FILE", Risky},
    {"NCCL_P2P_USE_CUDA_MEMCPY", TorchOn},
    {"NCCL_PXN_DISABLE", TorchOn},
    {"NCCL_DMABUF_ENABLE", Neutral},
    {"NCCL_NVLS_ENABLE", Nvls},
    {"NCCL_CUMEM_ENABLE", Neutral},
    {"NCCL_DEBUG", Debug},
    {"NCCL_DEBUG_SUBSYS", Neutral},
    {"NCCL_DEBUG_FILE", Neutral},
    {"NCCL_MIN_NCHANNELS", Neutral},
    {"NCCL_MIN_CTAS", Neutral},
    {"NCCL_IB_HCA", Neutral},
    {"NCCL_IB_GID_INDEX", Neutral},
    {"NCCL_IB_TIMEOUT", Neutral},
    {"NCCL_IB_RETRY_CNT", Neutral},
    {"NCCL_IB_QPS_PER_CONNECTION", Neutral},
    {"NCCL_IB_TC", Neutral},
    {"NCCL_IB_SL", Neutral},
    {"NCCL_CROSS_NIC", Neutral},
    {"NCCL_COLLNET_ENABLE", Neutral},
    {"NCCL_SOCKET_NTHREADS", Neutral},
    {"NCCL_NSOCKS_PERTHREAD", Neutral},
    {"NCCL_NET_GDR_READ", Neutral},
    {"NCCL_NET_PLUGIN", Neutral},
    {"NCCL_TUNER_PLUGIN", Risky},
    {"NCCL_COMM_BLOCKING", Neutral},
    {"NCCL_RUNTIME_CONNECT", Neutral},
    {"NCCL_ASYNC_ERROR_HANDLING", Neutral},
    {"NCCL_BLOCKING_WAIT", TorchOn},
    {"NCCL_CHECKS_DISABLE", Neutral},
    {"NCCL_SET_THREAD_NAME", Neutral},
    {"NCCL_HOSTID", Neutral},
    {"NCCL_VERSION", ImageVersion},
    {"NCCL_PROFILER_PLUGIN", Neutral},
    {"NCCL_ENV_PLUGIN", Neutral},
    {"NCCL_GIN_PLUGIN", Neutral},
    {"NCCL_RMA_PLUGIN", Neutral},
    {"NCCL_TUNER_CONFIG_FILE", Risky},
    {"NCCL_RAS_ENABLE", Neutral},
    {"NCCL_RAS_ADDR", Neutral},
    {"NCCL_RAS_TIMEOUT_FACTOR", Neutral},
    {"TORCH_NCCL_BLOCKING_WAIT", TorchOn},
    {"TORCH_NCCL_ASYNC_ERROR_HANDLING", Neutral},
    {"TORCH_NCCL_ENABLE_MONITORING", Neutral},
    {"TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC", Neutral},
    {"TORCH_NCCL_TRACE_BUFFER_SIZE", Neutral},
    {"TORCH_NCCL_DUMP_ON_TIMEOUT", Neutral},
    {"TORCH_NCCL_DEBUG_INFO_TEMP_FILE", Neutral},
    {"TORCH_NCCL_HIGH_PRIORITY", Neutral},
    {"TORCH_NCCL_AVOID_RECORD_STREAMS", Neutral},
    {"TORCH_NCCL_USE_COMM_NONBLOCKING", TorchOn},
    {"TORCH_NCCL_ENABLE_TIMING", TorchOn},
    {"TORCH_NCCL_DESYNC_DEBUG", TorchOn},
    {"TORCH_NCCL_NAN_CHECK", TorchOn},
    {"TORCH_NCCL_CUDA_EVENT_CACHE", Neutral},
    {"TORCH_DISTRIBUTED_DEBUG", TorchOn},
    {"CUDA_LAUNCH_BLOCKING", LaunchBlocking},
    {"CUDA_DEVICE_MAX_CONNECTIONS", MaxConnections},
    {"CUDA_VISIBLE_DEVICES", Neutral},
    {"CUDA_DEVICE_ORDER", Neutral},
};

// Variables read by NCCL's plugins rather than NCCL itself, by prefix: misspellings of NCCL's own
// names are not among them, so no "did you mean" is tried.
struct Family {
  const char* prefix;
  const char* what;
};
const Family kFamilies[] = {
    {"NCCL_INSPECTOR_",
     "read by the NCCL Inspector profiler plugin (its output folder, dump interval, verbosity)"},
    {"NCCL_PROFILE_", "read by NCCL's example profiler plugin (event mask, pools, dump file)"},
    {"NCCL_PROFILER_", "read by an NCCL profiler plugin"},
};

// Default explanations for entries whose rule returns no text.
const char* DefaultWhat(std::string_view name) {
  if (name == "NCCL_ALGO")
    return "forces the algorithm (ring/tree/...); NCCL's tuner usually picks better per size";
  if (name == "NCCL_PROTO") return "forces the protocol (LL/LL128/Simple); wrong for some sizes";
  if (name == "NCCL_NTHREADS") return "changes threads per CTA; defaults are tuned per GPU";
  if (name == "NCCL_LAUNCH_MODE") return "changes how multi-GPU launches are grouped";
  if (name == "NCCL_TOPO_FILE") return "NCCL reads the topology from a file instead of the machine";
  if (name == "NCCL_GRAPH_FILE") return "NCCL takes rings/trees from a file instead of searching";
  if (name == "NCCL_TUNER_PLUGIN") return "a tuner plugin picks algorithms and channels";
  if (name == "NCCL_TUNER_CONFIG_FILE")
    return "a tuner plugin's table of algorithms, protocols and channels per size";
  if (name == "NCCL_PROFILER_PLUGIN")
    return "loads a profiler plugin (the Inspector writes one record per collective)";
  if (name == "NCCL_ENV_PLUGIN") return "loads a plugin that sets NCCL's variables";
  if (name == "NCCL_GIN_PLUGIN" || name == "NCCL_RMA_PLUGIN")
    return "loads a plugin for device-initiated or one-sided communication";
  if (name == "NCCL_RAS_ENABLE") return "NCCL's RAS health monitor (on by default; ncclras)";
  if (name == "NCCL_RAS_ADDR") return "where NCCL's RAS listens for ncclras";
  if (name == "NCCL_RAS_TIMEOUT_FACTOR") return "scales RAS's keep-alive and dead timeouts";
  if (name == "NCCL_IGNORE_CPU_AFFINITY")
    return "NCCL ignores the GPU's CPU affinity for its threads";
  if (name == "NCCL_P2P_USE_CUDA_MEMCPY") return "P2P through copy engines; can be slower";
  if (name == "NCCL_PXN_DISABLE") return "turns off PXN (NVLink hop to the NIC's GPU) across nodes";
  if (name == "NCCL_BLOCKING_WAIT" || name == "TORCH_NCCL_BLOCKING_WAIT")
    return "the host blocks on every collective: no CPU/GPU overlap";
  if (name == "TORCH_NCCL_USE_COMM_NONBLOCKING") return "non-blocking communicators (experimental)";
  if (name == "TORCH_NCCL_ENABLE_TIMING") return "records CUDA events around every collective";
  if (name == "TORCH_NCCL_DESYNC_DEBUG") return "checks collective order across ranks (overhead)";
  if (name == "TORCH_NCCL_NAN_CHECK") return "runs a NaN check kernel before collectives";
  if (name == "TORCH_DISTRIBUTED_DEBUG")
    return "extra checks and logging in torch.distributed (DETAIL costs)";
  if (name == "NCCL_DMABUF_ENABLE") return "DMA-BUF for GPUDirect RDMA (instead of nvidia_peermem)";
  if (name == "NCCL_CUMEM_ENABLE") return "cuMem-based buffers (default on since 2.19)";
  return "";
}

// Whether a and b are at most kMaxTypo edits apart (Levenshtein), for "did you mean": misspelt
// variables are silently ignored by NCCL. Only the cells of the edit table within kMaxTypo of the
// diagonal can hold a distance that small, so each row keeps that band (2 * kMaxTypo + 1 cells,
// index j - i + kMaxTypo), and a row whose band is all over the bound ends the walk: an
// environment of 80,000 variables does not pay a full table per name and table entry.
constexpr int kMaxTypo = 2;
constexpr int kBand = 2 * kMaxTypo + 1;

bool WithinTypo(std::string_view a, std::string_view b) {
  const int la = static_cast<int>(a.size()), lb = static_cast<int>(b.size());
  if (la - lb > kMaxTypo || lb - la > kMaxTypo) return false;
  constexpr int kFar = kMaxTypo + 1;  // any distance over the bound
  int prev[kBand], cur[kBand];
  for (int d = 0; d < kBand; ++d)
    prev[d] = d >= kMaxTypo && d - kMaxTypo <= lb ? d - kMaxTypo : kFar;
  for (int i = 1; i <= la; ++i) {
    int best = kFar;
    for (int d = 0; d < kBand; ++d) {
      const int j = i + d - kMaxTypo;
      if (j < 0 || j > lb) {
        cur[d] = kFar;
        continue;
      }
      if (j == 0) {
        cur[d] = std::min(i, kFar);
      } else {
        const int sub = prev[d] + (a[i - 1] == b[j - 1] ? 0 : 1);
        const int up = d + 1 < kBand ? prev[d + 1] + 1 : kFar;
        const int left = d > 0 ? cur[d - 1] + 1 : kFar;
        cur[d] = std::min({sub, up, left, kFar});
      }
      best = std::min(best, cur[d]);
    }
    if (best > kMaxTypo) return false;
    std::copy(cur, cur + kBand, prev);
  }
  return prev[lb - la + kMaxTypo] <= kMaxTypo;
}

void LoadedNccl(const Job& job, Context& c) {
  for (const NcclLibrary& lib : job.env.nccl_libs)
    if (lib.chosen && !lib.version.empty()) {
      c.nccl_loaded = lib.version;
      c.nccl_loaded_from = "the library found here";
      return;
    }
  for (const NcclProcess& p : job.nccl.processes)
    if (!p.version.empty()) {
      c.nccl_loaded = p.version;
      c.nccl_loaded_from = "the NCCL log";
      return;
    }
}

}  // namespace

const char* VarRiskName(VarRisk r) {
  switch (r) {
    case VarRisk::kHarmful:
      return "harmful";
    case VarRisk::kRisky:
      return "risky";
    case VarRisk::kNeutral:
      break;
  }
  return "neutral";
}

bool IsCommVariable(std::string_view name) {
  return StartsWith(name, "NCCL_") || StartsWith(name, "TORCH_NCCL_") ||
         StartsWith(name, "TORCH_DISTRIBUTED_") ||
         std::any_of(std::begin(kTable), std::end(kTable),
                     [&](const Entry& e) { return name == e.name; });
}

VarVerdict ClassifyVariable(std::string_view name, std::string_view value, const Job& job) {
  Context c;
  c.ib = job.env.ib_present ||
         std::any_of(job.topo.nics.begin(), job.topo.nics.end(), [](const Nic& n) {
           return n.kind == NicKind::kInfiniband || n.kind == NicKind::kRoce;
         });
  c.nvlink = std::any_of(job.topo.pairs.begin(), job.topo.pairs.end(),
                         [](const GpuPair& p) { return p.nvlinks > 0; });
  c.gpus = static_cast<int>(job.topo.gpus.size());
  if (name == "NCCL_VERSION") LoadedNccl(job, c);
  for (const auto& e : kTable) {
    if (name != e.name) continue;
    VarVerdict v = e.rule(value, c);
    if (v.what.empty()) v.what = DefaultWhat(name);
    if (v.what.empty())
      v.what = v.risk == VarRisk::kNeutral ? "does not change performance" : "overrides a default";
    return v;
  }
  for (const auto& f : kFamilies)
    if (StartsWith(name, f.prefix)) return V(VarRisk::kNeutral, f.what);
  VarVerdict v;
  v.known = false;
  v.what =
      "not in commdx's table: check the spelling against the NCCL/PyTorch docs (misspelt "
      "names are silently ignored)";
  for (const auto& e : kTable) {
    if (!WithinTypo(name, e.name)) continue;
    v.risk = VarRisk::kRisky;
    v.what = std::string("unknown name, ignored by NCCL/PyTorch: did you mean ") + e.name + "?";
    break;
  }
  return v;
}

VarVerdict ClassifyVariable(const EnvVar& var, const Job& job) {
  VarVerdict v = ClassifyVariable(var.name, var.value, job);
  if (v.known || var.source.empty()) return v;
  v.risk = VarRisk::kNeutral;
  v.what = "a setting PyTorch reports in effect; not in commdx's table";
  return v;
}

}  // namespace commdx::analysis
