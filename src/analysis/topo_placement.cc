// Placement audit of the processes that hold GPUs (NVML running processes + /proc/PID/status):
//   topo.cross_numa_rank  a process may run only on CPUs of another NUMA node than its GPU (or is
//                         not pinned at all on a multi-socket machine: info)
//   topo.gpu_shared       two or more processes hold one GPU (classic: every rank also creates a
//                         context on GPU0 before set_device)
//   topo.cpu_overlap      processes pinned to CPU sets that overlap: they compete for cores
#include <algorithm>
#include <map>

#include "analysis/catalogue.h"
#include "analysis/topo_analyzers.h"
#include "analysis/topo_common.h"

namespace commdx::analysis {

namespace {

std::vector<int> Cpus(const std::string& list) {
  auto r = ParseCpuList(list);
  return r ? *r : std::vector<int>{};
}

std::vector<int> Intersect(const std::vector<int>& a, const std::vector<int>& b) {
  std::vector<int> out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

void CrossNuma(const Topology& t, const GpuProcess& p, std::vector<Finding>& out) {
  const Gpu* g = t.FindGpu(p.gpu_index);
  if (!g || !g->numa_node || !p.proc_visible || p.cpus_allowed.empty()) return;
  std::vector<int> node = NumaCpus(t, *g->numa_node);
  std::vector<int> allowed = Cpus(p.cpus_allowed);
  if (node.empty() || allowed.empty()) return;
  std::vector<int> near = Intersect(allowed, node);
  bool unpinned = t.online_cpus > 0 && static_cast<int>(allowed.size()) >= t.online_cpus;
  if (near.size() == allowed.size()) return;  // all allowed CPUs are on the GPU's node
  if (unpinned && t.numa.size() < 2) return;
  Finding f = NewFinding("topo.cross_numa_rank");
  if (p.rank) f.rank = *p.rank;
  double far_share = 1.0 - static_cast<double>(near.size()) / allowed.size();
  if (near.empty()) {
    f.severity = Severity::kWarning;
    f.title = ProcessLabel(p) + " on " + GpuLabel(*g) + " runs only on CPUs of another NUMA node";
  } else if (unpinned) {
    f.severity = Severity::kInfo;
    f.confidence = 0.5;
    f.title = ProcessLabel(p) + " is not pinned: it may run on the socket far from " + GpuLabel(*g);
  } else {
    f.severity = Severity::kWarning;
    f.confidence = 0.8;
    f.title = ProcessLabel(p) + " may run on CPUs of another NUMA node than " + GpuLabel(*g);
  }
  f.detail = "The GPU hangs off NUMA node " + std::to_string(*g->numa_node) + " (CPUs " +
             FormatCpuList(node) + "); the process may run on CPUs " + p.cpus_allowed +
             (p.mems_allowed.empty() ? "" : " and allocate memory on node(s) " + p.mems_allowed) +
             ". Kernel launches, host staging buffers and NCCL's proxy thread then cross the "
             "socket interconnect.";
  f.metrics = {{"far_cpu_share", far_share, Unit::kRatio},
               {"gpu_numa_node", static_cast<double>(*g->numa_node), Unit::kNode}};
  f.refs.push_back(
      Ref({}, "/proc/" + std::to_string(p.pid) + "/status: Cpus_allowed_list: " + p.cpus_allowed));
  f.fix = "Bind each rank to its GPU's NUMA node: `numactl --cpunodebind=" +
          std::to_string(*g->numa_node) + " --membind=" + std::to_string(*g->numa_node) +
          "`, torchrun/srun `--cpu-bind`, or taskset to CPUs " + FormatCpuList(node) +
          " (nvidia-smi topo -m lists each GPU's CPU affinity).";
  out.push_back(std::move(f));
}

void SharedGpus(const Topology& t, std::vector<Finding>& out) {
  std::map<int, std::vector<const GpuProcess*>> by_gpu;
  for (const auto& p : t.processes) by_gpu[p.gpu_index].push_back(&p);
  for (const auto& [gpu, procs] : by_gpu) {
    if (procs.size() < 2) continue;
    Finding f = NewFinding("topo.gpu_shared");
    f.severity = Severity::kWarning;
    f.title = std::to_string(procs.size()) + " processes hold " + GpuLabel(t, gpu);
    f.detail =
        "Several processes have a CUDA context on one GPU: either two ranks were given the "
        "same device, or ranks touched this GPU before torch.cuda.set_device() (each such "
        "context costs memory and they time-share the GPU).";
    for (const GpuProcess* p : procs)
      f.refs.push_back(Ref({}, ProcessLabel(*p) + ": " +
                                   std::to_string(p->used_memory_bytes >> 20) + " MiB on GPU" +
                                   std::to_string(gpu)));
    f.metrics = {{"processes", static_cast<double>(procs.size()), Unit::kProcesses}};
    f.fix =
        "Call torch.cuda.set_device(local_rank) before any CUDA work (and pass device_id to "
        "init_process_group); give each rank its own GPU (LOCAL_RANK / CUDA_VISIBLE_DEVICES).";
    out.push_back(std::move(f));
  }
}

void CpuOverlap(const Topology& t, std::vector<Finding>& out) {
  std::vector<std::pair<const GpuProcess*, std::vector<int>>> pinned;
  for (const auto& p : t.processes) {
    if (!p.proc_visible) continue;
    // A process on several GPUs is listed once per GPU; compare it once.
    if (std::any_of(pinned.begin(), pinned.end(),
                    [&](const auto& x) { return x.first->pid == p.pid; }))
      continue;
    auto cpus = Cpus(p.cpus_allowed);
    if (cpus.empty() || (t.online_cpus > 0 && static_cast<int>(cpus.size()) >= t.online_cpus))
      continue;
    pinned.emplace_back(&p, std::move(cpus));
  }
  for (size_t i = 0; i < pinned.size(); ++i)
    for (size_t j = i + 1; j < pinned.size(); ++j) {
      std::vector<int> both = Intersect(pinned[i].second, pinned[j].second);
      if (both.empty()) continue;
      Finding f = NewFinding("topo.cpu_overlap");
      f.severity = Severity::kWarning;
      f.title = ProcessLabel(*pinned[i].first) + " and " + ProcessLabel(*pinned[j].first) +
                " are pinned to overlapping CPUs " + FormatCpuList(both);
      f.detail =
          "Both processes may only run on these CPUs, so their Python threads, data "
          "loaders and NCCL proxy threads compete for the same cores.";
      f.metrics = {{"shared_cpus", static_cast<double>(both.size()), Unit::kCpus}};
      for (const auto& [p, cpus] : {pinned[i], pinned[j]})
        f.refs.push_back(Ref({}, "/proc/" + std::to_string(p->pid) +
                                     "/status: Cpus_allowed_list: " + p->cpus_allowed));
      f.fix =
          "Give each rank a disjoint CPU set on its GPU's NUMA node (torchrun/srun CPU binding, "
          "numactl, or taskset).";
      out.push_back(std::move(f));
    }
}

}  // namespace

std::vector<Finding> FindTopoPlacement(const Job& job, const Options&) {
  const Topology& t = job.topo;
  std::vector<Finding> out;
  for (const auto& p : t.processes) CrossNuma(t, p, out);
  SharedGpus(t, out);
  CpuOverlap(t, out);
  return out;
}

}  // namespace commdx::analysis
