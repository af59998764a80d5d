// What the environment of a node looks like to a distributed job, format-free: the variables
// that steer NCCL/PyTorch/OpenMP, /dev/shm, locked-memory limit, container signs, driver and
// CUDA versions, which libnccl.so.2 would load, GPUDirect RDMA prerequisites, IOMMU. Filled live
// by probe/ or offline from a snapshot; analyzers only read it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace commdx {

struct EnvVar {
  std::string name;
  std::string value;
  std::string source = {};  // where it was read when not from an environment: "job.log:53 (rank 0)"
};

// Where a libnccl.so.2 candidate comes from, in search order (docs/bench-method.md, "Library").
enum class NcclOrigin : uint8_t {
  kFlag,     // --nccl-lib
  kEnvVar,   // $COMMDX_NCCL_LIB
  kLoader,   // a plain dlopen("libnccl.so.2"): LD_LIBRARY_PATH, the ld.so cache
  kPytorch,  // the NCCL bundled with an installed PyTorch (nvidia/nccl/lib)
  kProcess,  // not searched: the library a job's process reported it loaded (its env dump)
};
// "--nccl-lib", "COMMDX_NCCL_LIB", "loader", "pytorch", "process" (the snapshot's and the
// reports' words).
const char* NcclOriginName(NcclOrigin o);
std::optional<NcclOrigin> ParseNcclOrigin(std::string_view s);

// A libnccl.so.2 a process could load, in the search order of docs/bench-method.md ("Library").
struct NcclLibrary {
  std::string path;  // resolved file
  NcclOrigin origin = NcclOrigin::kLoader;
  std::string version;  // "2.28.9", empty when it could not be read
  std::string error;    // why it could not be loaded/read
  bool chosen = false;  // the one a plain dlopen("libnccl.so.2") (or --nccl-lib) gives
};

// NCCL's plugin libraries, which NCCL itself dlopens beside libnccl.so.2 (NCCL_NET_PLUGIN,
// NCCL_PROFILER_PLUGIN, NCCL_TUNER_PLUGIN, NCCL_ENV_PLUGIN, NCCL_GIN_PLUGIN): libnccl-net.so,
// libnccl-net-ofi.so, libnccl-profiler-inspector.so, libnccl-ofi-tuner.so, libnccl-env.so, ...
// A process's list of loaded libraries names them beside NCCL; none of them is NCCL.
enum class NcclPluginKind : uint8_t { kNet, kProfiler, kTuner, kEnv, kGin, kRma, kOther };
// "net", "profiler", "tuner", "env", "gin", "rma", "plugin".
const char* NcclPluginKindName(NcclPluginKind k);
// The plugin kind of a library by its file name: "libnccl-<kind>[-name].so" (the names NCCL
// tries) or a name that says "tuner"/"profiler" ("libnccl-ofi-tuner.so"); any other
// "libnccl-*"/"libnccl_*" file is kOther. nullopt for NCCL itself ("libnccl.so", "libnccl.so.2",
// "libnccl.so.2.28.9") and for files that are not libnccl-something.
std::optional<NcclPluginKind> NcclPluginKindOf(std::string_view path);

// A plugin library a process had loaded (its environment dump's list of loaded libraries).
struct NcclPluginLib {
  std::string path;
  NcclPluginKind kind = NcclPluginKind::kOther;
};

struct ContainerSign {
  std::string what;      // "docker", "kubernetes", "ipc namespace", "cgroup cpuset"
  std::string evidence;  // "/.dockerenv exists", "/proc/1/cgroup: .../kubepods/..."
};

inline constexpr uint64_t kUnlimited = UINT64_MAX;

struct EnvSnapshot {
  bool captured = false;
  // What was looked at. A live probe and a commdx snapshot look at the whole platform; a
  // process's environment dump carries its variables and perhaps a few facts. A fact that was
  // not looked at is "not checked", never a finding: analyzers test these before concluding
  // from an empty field.
  bool platform_checked = false;   // /dev/shm, memlock, container, RDMA, peermem, IOMMU, driver
  bool nccl_libs_checked = false;  // nccl_libs is the result of a search (empty = none found)
  std::string host;
  std::vector<EnvVar> vars;  // NCCL_*, TORCH_NCCL_*, CUDA_*, OMP_*, rank variables, ...

  std::optional<uint64_t> shm_total_bytes;  // /dev/shm size
  std::optional<uint64_t> shm_free_bytes;
  std::string shm_source;                      // "statvfs(/dev/shm)", "/proc/mounts"
  std::optional<uint64_t> memlock_soft_bytes;  // RLIMIT_MEMLOCK; kUnlimited = unlimited
  std::optional<uint64_t> memlock_hard_bytes;

  int online_cpus = 0;
  std::string cpus_allowed;  // this process's Cpus_allowed_list (cgroup cpuset shows here)

  std::vector<ContainerSign> container_signs;
  bool in_container = false;

  std::string driver_version;        // "580.159.04" (/proc/driver/nvidia/version or NVML)
  int cuda_driver_version = 0;       // 13000 = the newest CUDA the driver supports (NVML)
  std::string cuda_runtime_version;  // "12.8" (PyTorch's build, or /usr/local/cuda)
  std::string cuda_runtime_source;   // where that came from
  std::string torch_version;         // "2.11.0+cu128"
  std::string torch_path;            // site-packages/torch

  std::vector<NcclLibrary> nccl_libs;
  std::vector<NcclPluginLib> nccl_plugins;  // loaded beside NCCL, never "the NCCL library"

  bool ib_present = false;
  std::vector<std::string> ib_devices;  // mlx5_0, ...
  std::optional<bool> peermem_loaded;   // nvidia_peermem (or nv_peer_mem) module
  std::string peermem_module;

  std::optional<bool> iommu_enabled;  // /sys/class/iommu has entries
  std::string iommu_mode;             // default domain type of a GPU's group: "identity", "DMA"
  std::string kernel_iommu_args;      // iommu-related words of /proc/cmdline

  const EnvVar* Find(std::string_view name) const {
    for (const auto& v : vars)
      if (v.name == name) return &v;
    return nullptr;
  }
};

}  // namespace commdx
