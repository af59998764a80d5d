#include "bench/cuda/link_query.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <algorithm>
#include <climits>

namespace commdx::bench {

namespace {

using NvmlDevice = void*;
struct Nvml {
  void* h = nullptr;
  int (*Init)() = nullptr;
  int (*Shutdown)() = nullptr;
  int (*ByBusId)(const char*, NvmlDevice*) = nullptr;
  int (*LinkState)(NvmlDevice, unsigned, int*) = nullptr;
  int (*LinkVersion)(NvmlDevice, unsigned, unsigned*) = nullptr;
  int (*PcieGen)(NvmlDevice, unsigned*) = nullptr;
  int (*PcieWidth)(NvmlDevice, unsigned*) = nullptr;

  bool Load() {
    h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) return false;
    Init = reinterpret_cast<int (*)()>(dlsym(h, "nvmlInit_v2"));
    Shutdown = reinterpret_cast<int (*)()>(dlsym(h, "nvmlShutdown"));
    ByBusId = reinterpret_cast<int (*)(const char*, NvmlDevice*)>(
        dlsym(h, "nvmlDeviceGetHandleByPciBusId_v2"));
    LinkState =
        reinterpret_cast<int (*)(NvmlDevice, unsigned, int*)>(dlsym(h, "nvmlDeviceGetNvLinkState"));
    LinkVersion = reinterpret_cast<int (*)(NvmlDevice, unsigned, unsigned*)>(
        dlsym(h, "nvmlDeviceGetNvLinkVersion"));
    PcieGen = reinterpret_cast<int (*)(NvmlDevice, unsigned*)>(
        dlsym(h, "nvmlDeviceGetCurrPcieLinkGeneration"));
    PcieWidth = reinterpret_cast<int (*)(NvmlDevice, unsigned*)>(
        dlsym(h, "nvmlDeviceGetCurrPcieLinkWidth"));
    return Init && Shutdown && ByBusId && LinkState && Init() == 0;
  }
};

constexpr unsigned kMaxLinks = 18;  // NVML_NVLINK_MAX_LINKS

}  // namespace

BenchTopology QueryTopology(const std::vector<int>& devs) {
  BenchTopology t;
  if (devs.empty()) return t;
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, devs[0]) == cudaSuccess) {
    t.gpu_name = prop.name;
    t.compute_major = prop.major;
    t.compute_minor = prop.minor;
  }
  bool peer = devs.size() > 1;
  for (size_t i = 0; i + 1 < devs.size(); ++i) {
    int can = 0;
    if (cudaDeviceCanAccessPeer(&can, devs[i], devs[i + 1]) != cudaSuccess || !can) peer = false;
  }
  Nvml nvml;
  int min_links = INT_MAX;
  if (nvml.Load()) {
    for (int d : devs) {
      char bus[32];
      NvmlDevice h = nullptr;
      if (cudaDeviceGetPCIBusId(bus, sizeof bus, d) != cudaSuccess || nvml.ByBusId(bus, &h) != 0)
        continue;
      int active = 0;
      for (unsigned l = 0; l < kMaxLinks; ++l) {
        int state = 0;
        if (nvml.LinkState(h, l, &state) == 0 && state == 1) {
          ++active;
          unsigned v = 0;
          if (nvml.LinkVersion && nvml.LinkVersion(h, l, &v) == 0)
            t.nvlink_version = std::max(t.nvlink_version, static_cast<int>(v));
        }
      }
      min_links = std::min(min_links, active);
      unsigned gen = 0, width = 0;
      if (nvml.PcieGen && nvml.PcieGen(h, &gen) == 0) t.pcie_gen = static_cast<int>(gen);
      if (nvml.PcieWidth && nvml.PcieWidth(h, &width) == 0) t.pcie_width = static_cast<int>(width);
    }
    nvml.Shutdown();
  }
  if (min_links != INT_MAX) t.nvlinks_per_gpu = min_links;
  if (t.nvlinks_per_gpu > 0)
    t.link = BenchLink::kNvLink;
  else if (devs.size() > 1)
    t.link = peer ? BenchLink::kPcie : BenchLink::kHost;
  return t;
}

}  // namespace commdx::bench
