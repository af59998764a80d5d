// The narrow interface between commdx and NVML: what one query of the driver returns, in raw
// NVML terms (codes, bitmasks, MB/s). NvmlGpuSource (nvml_gpu_source.cc) answers it through
// dlopen("libnvidia-ml.so.1"); FakeGpuSource answers it from canned facts in tests. Turning the
// raw answers into model::Topology happens once, in topology_probe.cc, for both.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"

namespace commdx::probe {

struct RawSystem {
  std::string driver_version;   // "580.159.04"
  std::string nvml_version;     // "13.580.159.04"
  int cuda_driver_version = 0;  // 13000
};

struct RawNvLink {
  int link = 0;
  bool active = false;
  unsigned version = 0;                 // nvmlDeviceGetNvLinkVersion as returned (enum or plain)
  std::string remote_bus_id;            // nvmlDeviceGetNvLinkRemotePciInfo_v2 busId
  std::optional<unsigned> remote_type;  // nvmlIntNvLinkDeviceType_t: 0 GPU, 1 IBMNPU, 2 SWITCH
  std::optional<uint64_t> replay, recovery, crc_flit, crc_data;  // nvmlNvLinkErrorCounter_t 0..3
};

struct RawDevice {
  std::string name;
  std::string uuid;
  std::string bus_id;  // "00000000:18:00.0" as NVML writes it
  std::optional<unsigned> pcie_cur_gen, pcie_max_gen, pcie_cur_width, pcie_max_width;
  std::optional<unsigned> numa_node;            // nvmlDeviceGetNumaNodeId (newer drivers)
  std::optional<unsigned> mig_current;          // nvmlDeviceGetMigMode
  std::optional<unsigned> ecc_current;          // nvmlEnableState_t
  std::optional<unsigned> persistence;          // nvmlEnableState_t
  std::optional<unsigned> compute_mode;         // nvmlComputeMode_t
  std::optional<uint64_t> clock_event_reasons;  // nvmlClocksEventReason* bits
  std::optional<unsigned> nvlink_speed_mbps;    // NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON (90)
  std::optional<unsigned> nvlink_count;         // NVML_FI_DEV_NVLINK_LINK_COUNT (91)
  std::vector<RawNvLink> nvlinks;               // links NVML answered for
  std::vector<std::string> notes;               // calls that failed unexpectedly, for --verbose
};

// nvmlGpuP2PStatus_t per nvmlGpuP2PCapsIndex_t, and nvmlGpuTopologyLevel_t.
struct RawPair {
  std::optional<unsigned> read, write, nvlink, atomics, pci;
  std::optional<unsigned> common_ancestor;  // 0 INTERNAL, 10 SINGLE, 20 MULTIPLE, 30 HOSTBRIDGE,
                                            // 40 NODE, 50 SYSTEM
};

struct RawProcess {
  int64_t pid = 0;
  uint64_t used_memory_bytes = 0;  // NVML gives ~0ULL when not available
};

class GpuSource {
 public:
  virtual ~GpuSource() = default;
  // "NVML 13.580.159.04 (libnvidia-ml.so.1)" or "fake"
  virtual std::string Describe() const = 0;
  virtual Result<RawSystem> System() = 0;
  virtual Result<int> DeviceCount() = 0;
  virtual Result<RawDevice> Device(int index) = 0;
  virtual Result<RawPair> Pair(int a, int b) = 0;
  virtual Result<std::vector<RawProcess>> Processes(int index) = 0;
};

// Canned answers for tests: fill the vectors and maps, errors where a call should fail.
class FakeGpuSource : public GpuSource {
 public:
  RawSystem system;
  std::vector<RawDevice> devices;
  std::vector<std::vector<RawPair>> pairs;         // [a][b]; missing -> NOT_SUPPORTED
  std::vector<std::vector<RawProcess>> processes;  // per device
  std::optional<std::string> fail_count;           // DeviceCount() error message

  std::string Describe() const override { return "fake NVML"; }
  Result<RawSystem> System() override { return system; }
  Result<int> DeviceCount() override;
  Result<RawDevice> Device(int index) override;
  Result<RawPair> Pair(int a, int b) override;
  Result<std::vector<RawProcess>> Processes(int index) override;
};

}  // namespace commdx::probe
