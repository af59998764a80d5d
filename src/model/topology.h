// The machine a job runs on, format-free: GPUs and their links, the P2P matrix, the PCIe path
// between each GPU pair, NUMA nodes, NICs and the processes that use the GPUs. Filled live by
// probe/ (NVML, sysfs, /proc) or offline by ingest/smi_topo (nvidia-smi text) and
// ingest/snapshot (a saved `commdx topo --save` file). Analyzers only read it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace commdx {

// How two devices are connected, in `nvidia-smi topo -m` terms, best first.
enum class PathType {
  kUnknown,
  kSelf,    // X
  kNvLink,  // NV# (a bonded set of NVLinks, directly or through NVSwitch)
  kPix,     // at most one PCIe bridge (same switch)
  kPxb,     // several PCIe bridges, not through the host bridge
  kPhb,     // through a PCIe host bridge (the CPU)
  kNode,    // across host bridges within one NUMA node
  kSys,     // across the SMP interconnect between NUMA nodes (QPI/UPI/xGMI)
};
const char* PathTypeName(PathType p);  // "X", "NV", "PIX", ... "?"
// "PIX", "PXB", "PHB", "NODE", "SYS", "SOC" (old name of SYS), "X"; NV# is parsed by the caller.
std::optional<PathType> ParsePathType(std::string_view s);
// True for paths that go through a CPU (PHB, NODE, SYS).
bool PathCrossesCpu(PathType p);

// nvmlGpuP2PStatus_t, in `nvidia-smi topo -p2p` terms.
enum class P2PStatus {
  kUnknown,               // U (or not read)
  kOk,                    // OK
  kChipsetNotSupported,   // CNS
  kGpuNotSupported,       // GNS
  kTopologyNotSupported,  // TNS (IOH topology)
  kDisabledByRegKey,      // DR (newer legends: "Disabled by regkey")
  kNotSupported,          // NS
};
const char* P2PStatusCode(P2PStatus s);  // "OK", "CNS", ...
std::optional<P2PStatus> ParseP2PStatusCode(std::string_view s);

struct PcieLinkState {
  int cur_gen = 0;  // 0 = unknown
  int max_gen = 0;
  int cur_width = 0;
  int max_width = 0;
};

struct NvLinkState {
  int link = 0;
  std::optional<bool> active;
  int version = 0;            // NVLink generation 1..5, 0 = unknown
  std::string remote_bus_id;  // normalised; empty when unknown
  bool remote_is_switch = false;
  double speed_gbps = 0;  // GB/s per direction as `nvidia-smi nvlink -s` reads; 0 = unknown
  std::optional<uint64_t> replay_errors;
  std::optional<uint64_t> recovery_errors;
  std::optional<uint64_t> crc_flit_errors;
  std::optional<uint64_t> crc_data_errors;
};

// NVML clock-event (throttle) reason bits (nvmlClocksEventReason*).
namespace clock_event {
inline constexpr uint64_t kGpuIdle = 0x1;
inline constexpr uint64_t kApplicationsClocks = 0x2;
inline constexpr uint64_t kSwPowerCap = 0x4;
inline constexpr uint64_t kHwSlowdown = 0x8;
inline constexpr uint64_t kSyncBoost = 0x10;
inline constexpr uint64_t kSwThermal = 0x20;
inline constexpr uint64_t kHwThermal = 0x40;
inline constexpr uint64_t kHwPowerBrake = 0x80;
inline constexpr uint64_t kDisplayClocks = 0x100;
}  // namespace clock_event
// "sw_power_cap,hw_slowdown" for the set bits; empty for none.
std::string ClockEventNames(uint64_t bits);

struct Gpu {
  int index = -1;
  std::string name;    // "NVIDIA H200"
  std::string uuid;    // "GPU-1dabc450-..."
  std::string bus_id;  // "0000:18:00.0", normalised
  std::optional<int> numa_node;
  std::string cpu_affinity;  // cpulist, "0-31"
  PcieLinkState pcie;
  std::vector<NvLinkState> nvlinks;  // every link NVML or nvlink -s listed, active or not
  std::optional<bool> mig_enabled;
  std::optional<bool> ecc_enabled;
  std::optional<bool> persistence_mode;
  std::string compute_mode;  // "Default", "Exclusive_Process", "Prohibited"
  std::optional<uint64_t> clock_event_reasons;
  SourceLoc loc;  // where an offline input described it

  int ActiveNvLinks() const;
};

struct GpuPair {
  int a = -1;  // GPU indices, a < b
  int b = -1;
  PathType path = PathType::kUnknown;       // PCIe/NVLink path (NVLink wins when present)
  PathType pcie_path = PathType::kUnknown;  // the PCIe path alone, where known
  int nvlinks = 0;                          // bonded NVLinks (NV#)
  P2PStatus p2p_read = P2PStatus::kUnknown;
  P2PStatus p2p_write = P2PStatus::kUnknown;
  P2PStatus p2p_nvlink = P2PStatus::kUnknown;
  P2PStatus p2p_atomics = P2PStatus::kUnknown;
  P2PStatus p2p_pci = P2PStatus::kUnknown;  // `topo -p2p p` (NVML_P2P_CAPS_INDEX_PCI)
  std::vector<std::string> bridges;         // PCI bridges between the two GPUs (sysfs), bus ids
  SourceLoc loc;
};

enum class NicKind { kUnknown, kInfiniband, kRoce, kEthernet };
const char* NicKindName(NicKind k);

struct Nic {
  std::string name;    // "mlx5_0" (RDMA device) or "eth0" (plain netdev)
  std::string legend;  // "NIC0" in `nvidia-smi topo -m`, empty live
  NicKind kind = NicKind::kUnknown;
  std::string bus_id;  // PCI device, empty for virtual ones
  std::optional<int> numa_node;
  std::vector<std::string> netdevs;  // netdevs of an RDMA device
  double rate_gbit = 0;  // link rate in Gbit/s (IB "400 Gb/sec", netdev speed); 0 = unknown
  std::string state;     // "ACTIVE", "up", "down"
  std::vector<PathType> gpu_paths;  // path to GPU i, index = GPU index
  SourceLoc loc;
};

struct NumaNode {
  int id = 0;
  std::string cpulist;  // "0-15,32-47"
  uint64_t mem_total_bytes = 0;
};

// A PCI bridge between GPUs (or a GPU and a NIC) and its ACS control, where readable.
struct PciBridge {
  std::string bus_id;
  bool config_readable = false;  // extended config space readable (root only)
  bool has_acs = false;
  uint16_t acs_ctrl = 0;        // ACS control register
  bool P2PRedirected() const;   // request or completion redirect set
  std::string AcsText() const;  // "SrcValid+ ReqRedir+ CmpltRedir+ ..."
};
namespace acs {
inline constexpr uint16_t kSourceValidation = 0x1;
inline constexpr uint16_t kTranslationBlocking = 0x2;
inline constexpr uint16_t kRequestRedirect = 0x4;
inline constexpr uint16_t kCompletionRedirect = 0x8;
inline constexpr uint16_t kUpstreamForwarding = 0x10;
inline constexpr uint16_t kEgressControl = 0x20;
inline constexpr uint16_t kDirectTranslated = 0x40;
}  // namespace acs

// A process that holds a GPU context (NVML running processes) and where it may run.
struct GpuProcess {
  int64_t pid = 0;
  int gpu_index = -1;
  std::string name;  // /proc/PID/comm
  uint64_t used_memory_bytes = 0;
  bool proc_visible = false;  // /proc/PID readable (other PID namespaces hide it)
  std::string cpus_allowed;   // Cpus_allowed_list
  std::string mems_allowed;   // Mems_allowed_list
  std::optional<int> rank;    // RANK / LOCAL_RANK from /proc/PID/environ, where readable
  std::optional<int> local_rank;
};

// Where a topology's facts come from.
enum class TopoSource : uint8_t {
  kNone,       // nothing read yet
  kLive,       // this machine (NVML, sysfs, /proc)
  kNvidiaSmi,  // nvidia-smi text (topo -m, topo -p2p, nvlink -s)
  kSnapshot,   // a saved `commdx topo --save` / `doctor --save` snapshot
};
const char* TopoSourceName(TopoSource s);  // "" | "live" | "nvidia-smi" | "snapshot"
std::optional<TopoSource> ParseTopoSource(std::string_view s);

struct Topology {
  TopoSource source = TopoSource::kNone;
  std::string host;
  std::string gpu_source;  // "nvml", "sysfs", "nvidia-smi topo -m", ...
  std::string nvml_error;  // why NVML facts are missing (empty when NVML answered)
  std::string driver_version;
  int cuda_driver_version = 0;  // 13000 = CUDA 13.0, what the driver supports
  std::string cpu_vendor;       // "GenuineIntel", "AuthenticAMD", ...
  std::string cpu_model;
  int online_cpus = 0;
  std::vector<Gpu> gpus;
  std::vector<GpuPair> pairs;  // one per unordered GPU pair, a < b
  std::vector<Nic> nics;
  std::vector<NumaNode> numa;
  std::vector<PciBridge> bridges;
  std::vector<GpuProcess> processes;
  bool processes_read = false;     // the process list was asked for (empty means none)
  std::vector<std::string> files;  // offline inputs it was read from

  bool empty() const { return gpus.empty() && numa.empty() && nics.empty(); }
  const Gpu* FindGpu(int index) const;
  Gpu& GpuAt(int index);  // creates it (and those before it) when missing
  const GpuPair* FindPair(int a, int b) const;  // either order
  GpuPair& PairAt(int a, int b);                // creates it when missing
  const PciBridge* FindBridge(std::string_view bus_id) const;
  const NumaNode* FindNuma(int id) const;
};

// "00000000:18:00.0" / "0000:18:00.0" / "18:00.0" -> "0000:18:00.0" (lower case). Unchanged
// if it does not look like a PCI address.
std::string NormalizeBusId(std::string_view bus_id);

// NVLink generation of a GPU model from its name: V100 2, A100/A800 3, H100/H200/H800/GH200 4,
// B100/B200/B300/GB200 5; 0 when the name says nothing.
int NvLinkGenerationForGpuName(std::string_view name);

// "0-3,8,10-11" -> {0,1,2,3,8,10,11}. Errors on anything else (empty is an empty set).
Result<std::vector<int>> ParseCpuList(std::string_view list);
// {0,1,2,3,8} -> "0-3,8".
std::string FormatCpuList(const std::vector<int>& cpus);

}  // namespace commdx
