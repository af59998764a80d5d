#include "probe/env_probe.h"

#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>

#include "base/text.h"
#include "probe/sysfs_pci.h"
#include "probe/sysfs_system.h"

namespace commdx::probe {

bool KeepVariable(std::string_view name) {
  static constexpr const char* kPrefixes[] = {
      "NCCL_",        "TORCH_NCCL_",   "TORCH_DISTRIBUTED_",
      "CUDA_",        "OMP_",          "UCX_",
      "FI_",          "PYTORCH_CUDA_", "SLURM_LOCALID",
      "SLURM_NTASKS", "SLURM_CPUS",    "OMPI_COMM_WORLD_LOCAL",
      "PMIX_RANK"};
  static constexpr const char* kNames[] = {"RANK",
                                           "LOCAL_RANK",
                                           "WORLD_SIZE",
                                           "LOCAL_WORLD_SIZE",
                                           "MASTER_ADDR",
                                           "MASTER_PORT",
                                           "LD_LIBRARY_PATH",
                                           "LD_PRELOAD",
                                           "COMMDX_NCCL_LIB",
                                           "MKL_NUM_THREADS",
                                           "KUBERNETES_SERVICE_HOST",
                                           "container",
                                           "VIRTUAL_ENV",
                                           "CONDA_PREFIX",
                                           "GROUP_RANK",
                                           "NVIDIA_VISIBLE_DEVICES",
                                           "NVIDIA_DRIVER_CAPABILITIES"};
  for (const char* p : kPrefixes)
    if (StartsWith(name, p)) return true;
  for (const char* n : kNames)
    if (name == n) return true;
  return false;
}

void ParseMemlock(std::string_view limits, EnvSnapshot& env) {
  // "Max locked memory         65536                65536                bytes"
  for (std::string_view line : Split(limits, '\n')) {
    if (!StartsWith(line, "Max locked memory")) continue;
    auto words = SplitWhitespace(line.substr(17));
    if (words.size() < 2) return;
    auto value = [](std::string_view w) -> std::optional<uint64_t> {
      if (w == "unlimited") return kUnlimited;
      auto v = ParseInt(w);
      if (!v || *v < 0) return std::nullopt;
      return static_cast<uint64_t>(*v);
    };
    env.memlock_soft_bytes = value(words[0]);
    env.memlock_hard_bytes = value(words[1]);
    return;
  }
}

std::optional<uint64_t> ShmSizeFromMounts(std::string_view mounts) {
  // "shm /dev/shm tmpfs rw,nosuid,nodev,noexec,relatime,size=65536k 0 0"
  std::optional<uint64_t> found;
  for (std::string_view line : Split(mounts, '\n')) {
    auto words = SplitWhitespace(line);
    if (words.size() < 4 || words[1] != "/dev/shm") continue;
    for (std::string_view opt : Split(words[3], ',')) {
      if (!ConsumePrefix(opt, "size=")) continue;
      uint64_t mult = 1;
      char unit = opt.empty() ? 0 : opt.back();
      if (unit == 'k' || unit == 'K') mult = 1ull << 10;
      if (unit == 'm' || unit == 'M') mult = 1ull << 20;
      if (unit == 'g' || unit == 'G') mult = 1ull << 30;
      if (mult > 1) opt.remove_suffix(1);
      if (auto v = ParseInt(opt); v && *v >= 0) found = static_cast<uint64_t>(*v) * mult;
    }
  }
  return found;
}

namespace {

void ReadShm(const SysRoot& root, EnvSnapshot& env) {
  if (root.root() == "/") {
    struct statvfs st {};
    if (statvfs("/dev/shm", &st) == 0) {
      env.shm_total_bytes = static_cast<uint64_t>(st.f_blocks) * st.f_frsize;
      env.shm_free_bytes = static_cast<uint64_t>(st.f_bavail) * st.f_frsize;
      env.shm_source = "statvfs(/dev/shm)";
      return;
    }
  }
  if (auto mounts = root.Read("proc/mounts"))
    if (auto size = ShmSizeFromMounts(*mounts)) {
      env.shm_total_bytes = size;
      env.shm_source = "/proc/mounts";
    }
}

void ReadContainerSigns(const SysRoot& root, EnvSnapshot& env) {
  auto add = [&](std::string what, std::string evidence) {
    env.container_signs.push_back({std::move(what), std::move(evidence)});
  };
  if (root.Exists(".dockerenv")) add("docker", "/.dockerenv exists");
  if (root.Exists("run/.containerenv")) add("podman", "/run/.containerenv exists");
  if (auto cg = root.Read("proc/1/cgroup")) {
    for (const char* k : {"docker", "kubepods", "containerd", "libpod", "lxc"})
      if (Contains(*cg, k)) {
        add(k, "/proc/1/cgroup: " + std::string(Trim(std::string_view(*cg).substr(0, 120))));
        break;
      }
  }
  if (const EnvVar* k = env.Find("KUBERNETES_SERVICE_HOST"))
    add("kubernetes", "KUBERNETES_SERVICE_HOST=" + k->value);
  if (const EnvVar* c = env.Find("container")) add(c->value, "container=" + c->value);
  env.in_container = !env.container_signs.empty();
  if (!env.cpus_allowed.empty() && env.online_cpus > 0) {
    auto allowed = ParseCpuList(env.cpus_allowed);
    if (allowed && static_cast<int>(allowed->size()) < env.online_cpus)
      add("cgroup cpuset", "this process may use CPUs " + env.cpus_allowed + " of " +
                               std::to_string(env.online_cpus) + " online");
  }
}

void ReadRdmaAndIommu(const SysRoot& root, EnvSnapshot& env) {
  env.ib_devices = root.List("sys/class/infiniband");
  env.ib_present = !env.ib_devices.empty();
  std::string modules = root.Read("proc/modules").value_or("");
  for (const char* m : {"nvidia_peermem", "nv_peer_mem"}) {
    if (root.Exists(std::string("sys/module/") + m) || StartsWith(modules, std::string(m) + " ") ||
        Contains(modules, std::string("\n") + m + " ")) {
      env.peermem_loaded = true;
      env.peermem_module = m;
    }
  }
  if (!env.peermem_loaded && (!modules.empty() || root.Exists("sys/module")))
    env.peermem_loaded = false;
  if (root.Exists("sys/class/iommu")) env.iommu_enabled = !root.List("sys/class/iommu").empty();
  for (const auto& bus : ListPciFunctions(root)) {
    auto f = ReadPciFunction(root, bus);
    if (f && f->vendor == kNvidiaVendor && (f->class_code >> 16) == 0x03 &&
        !f->iommu_group_type.empty()) {
      env.iommu_mode = f->iommu_group_type;
      break;
    }
  }
  if (auto cmdline = root.Read("proc/cmdline"))
    for (std::string_view w : SplitWhitespace(*cmdline))
      if (StartsWith(w, "iommu") || StartsWith(w, "intel_iommu") || StartsWith(w, "amd_iommu"))
        env.kernel_iommu_args += (env.kernel_iommu_args.empty() ? "" : " ") + std::string(w);
}

}  // namespace

EnvSnapshot ProbeEnvironment(const EnvProbeOptions& options) {
  SysRoot root(options.root);
  EnvSnapshot env;
  env.captured = true;
  env.platform_checked = true;
  env.nccl_libs_checked = true;
  env.host = root.Read("proc/sys/kernel/hostname").value_or("");
  for (const auto& kv : options.environ) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos || !KeepVariable(std::string_view(kv).substr(0, eq))) continue;
    env.vars.push_back({kv.substr(0, eq), kv.substr(eq + 1)});
  }
  std::sort(env.vars.begin(), env.vars.end(),
            [](const EnvVar& a, const EnvVar& b) { return a.name < b.name; });
  ReadShm(root, env);
  if (auto limits = root.Read("proc/self/limits")) ParseMemlock(*limits, env);
  env.online_cpus = ReadOnlineCpus(root);
  if (auto status = root.Read("proc/self/status"))
    env.cpus_allowed = StatusField(*status, "Cpus_allowed_list").value_or("");
  ReadContainerSigns(root, env);
  if (auto v = root.Read("proc/driver/nvidia/version"))
    env.driver_version = DriverVersionFromProc(*v);
  ReadRdmaAndIommu(root, env);
  ProbePython(root, options.environ, env);
  ProbeNcclLibraries(options, env);
  return env;
}

}  // namespace commdx::probe
