// Processes that hold a GPU (NVML) and where the kernel lets them run (/proc/PID/status):
//
//   proc/4242/status    "Cpus_allowed_list:\t0-15"   "Mems_allowed_list:\t0"
//   proc/4242/comm      "python3"
//   proc/4242/environ   "RANK=3\0LOCAL_RANK=3\0..."   (readable for the same user or root)
//
// NVML reports host PIDs; inside a container's PID namespace they may not exist in /proc.
#include "base/text.h"
#include "probe/topology_probe.h"

namespace commdx::probe {

namespace {

std::optional<int> EnvInt(std::string_view environ, std::string_view name) {
  for (std::string_view kv : Split(environ, '\0')) {
    if (kv.size() > name.size() && StartsWith(kv, name) && kv[name.size()] == '=')
      if (auto v = ParseInt(kv.substr(name.size() + 1))) return static_cast<int>(*v);
  }
  return std::nullopt;
}

void ReadProc(const SysRoot& root, GpuProcess& p) {
  std::string dir = "proc/" + std::to_string(p.pid);
  auto status = root.Read(dir + "/status");
  if (!status) return;
  p.proc_visible = true;
  p.cpus_allowed = StatusField(*status, "Cpus_allowed_list").value_or("");
  p.mems_allowed = StatusField(*status, "Mems_allowed_list").value_or("");
  p.name = root.Read(dir + "/comm").value_or("");
  if (auto env = root.Read(dir + "/environ")) {
    p.rank = EnvInt(*env, "RANK");
    p.local_rank = EnvInt(*env, "LOCAL_RANK");
  }
}

}  // namespace

void AddGpuProcesses(GpuSource& source, const SysRoot& root, Topology& topo) {
  topo.processes_read = true;
  for (const auto& g : topo.gpus) {
    auto procs = source.Processes(g.index);
    if (!procs) continue;
    for (const auto& raw : *procs) {
      GpuProcess p;
      p.pid = raw.pid;
      p.gpu_index = g.index;
      // NVML writes ~0ULL (NVML_VALUE_NOT_AVAILABLE) when it cannot tell.
      p.used_memory_bytes = raw.used_memory_bytes == ~0ULL ? 0 : raw.used_memory_bytes;
      ReadProc(root, p);
      topo.processes.push_back(std::move(p));
    }
  }
}

}  // namespace commdx::probe
