#include "probe/topology_probe.h"

#include <unistd.h>

#include <algorithm>
#include <map>
#include <memory>

#include "base/str_format.h"
#include "base/text.h"
#include "probe/nvml_gpu_source.h"
#include "probe/sysfs_pci.h"
#include "probe/sysfs_system.h"

namespace commdx::probe {

namespace {

std::string HostName(const SysRoot& root) {
  if (auto h = root.Read("proc/sys/kernel/hostname"); h && !h->empty()) return *h;
  if (root.root() == "/") {
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) == 0) return buf;
  }
  return "";
}

bool IsGpuFunction(const PciFunction& f) {
  uint32_t cls = f.class_code >> 16;
  uint32_t sub = (f.class_code >> 8) & 0xff;
  return f.vendor == kNvidiaVendor && cls == 0x03 && (sub == 0x00 || sub == 0x02);
}

void AddNicPaths(const std::map<std::string, PciFunction>& funcs, Topology& topo) {
  for (auto& nic : topo.nics) {
    auto n = funcs.find(nic.bus_id);
    if (n == funcs.end()) continue;
    nic.gpu_paths.assign(topo.gpus.empty() ? 0 : topo.gpus.back().index + 1, PathType::kUnknown);
    for (const auto& g : topo.gpus) {
      auto f = funcs.find(g.bus_id);
      if (f != funcs.end())
        nic.gpu_paths[static_cast<size_t>(g.index)] = ClassifyPciPath(f->second, n->second);
    }
  }
}

void AddBridge(const SysRoot& root, const std::string& bus_id, Topology& topo) {
  if (topo.FindBridge(bus_id)) return;
  topo.bridges.push_back(ReadBridge(root, bus_id));
}

}  // namespace

void AddSysfsGpus(const SysRoot& root, Topology& topo) {
  int index = 0;
  for (const auto& bus : ListPciFunctions(root)) {
    auto f = ReadPciFunction(root, bus);
    if (!f || !IsGpuFunction(*f)) continue;
    Gpu g;
    g.index = index++;
    g.name = StrFormat("NVIDIA device 0x%04x", f->device);
    g.bus_id = f->bus_id;
    topo.gpus.push_back(std::move(g));
  }
  if (!topo.gpus.empty()) topo.gpu_source = "sysfs";
  for (size_t i = 0; i < topo.gpus.size(); ++i)
    for (size_t j = i + 1; j < topo.gpus.size(); ++j)
      topo.PairAt(topo.gpus[i].index, topo.gpus[j].index);
}

void AddPciFacts(const SysRoot& root, Topology& topo, bool acs) {
  std::map<std::string, PciFunction> funcs;
  for (auto& g : topo.gpus) {
    auto f = ReadPciFunction(root, g.bus_id);
    if (!f) continue;
    if (!g.numa_node) g.numa_node = f->numa_node;
    if (g.cpu_affinity.empty()) g.cpu_affinity = f->local_cpulist;
    if (g.pcie.cur_gen == 0) g.pcie.cur_gen = f->link.cur_gen;
    if (g.pcie.max_gen == 0) g.pcie.max_gen = f->link.max_gen;
    if (g.pcie.cur_width == 0) g.pcie.cur_width = f->link.cur_width;
    if (g.pcie.max_width == 0) g.pcie.max_width = f->link.max_width;
    funcs.emplace(g.bus_id, std::move(*f));
  }
  for (const auto& nic : topo.nics)
    if (!nic.bus_id.empty())
      if (auto f = ReadPciFunction(root, nic.bus_id)) funcs.emplace(nic.bus_id, std::move(*f));
  for (auto& p : topo.pairs) {
    const Gpu* a = topo.FindGpu(p.a);
    const Gpu* b = topo.FindGpu(p.b);
    if (!a || !b) continue;
    auto fa = funcs.find(a->bus_id);
    auto fb = funcs.find(b->bus_id);
    if (fa == funcs.end() || fb == funcs.end()) continue;
    if (p.pcie_path == PathType::kUnknown) p.pcie_path = ClassifyPciPath(fa->second, fb->second);
    if (p.path == PathType::kUnknown) p.path = p.nvlinks > 0 ? PathType::kNvLink : p.pcie_path;
    p.bridges = BridgesBetween(fa->second, fb->second);
    if (acs)
      for (const auto& br : p.bridges) AddBridge(root, br, topo);
  }
  AddNicPaths(funcs, topo);
  if (acs) {  // GPUDirect RDMA paths: bridges between each GPU and each RDMA NIC
    for (const auto& nic : topo.nics) {
      auto n = funcs.find(nic.bus_id);
      if (n == funcs.end() || nic.kind == NicKind::kEthernet) continue;
      for (const auto& g : topo.gpus) {
        auto f = funcs.find(g.bus_id);
        if (f == funcs.end()) continue;
        for (const auto& br : BridgesBetween(f->second, n->second)) AddBridge(root, br, topo);
      }
    }
  }
}

Topology ProbeTopology(const ProbeOptions& options, GpuSource* gpus,
                       const std::string& nvml_error) {
  SysRoot root(options.root);
  Topology topo;
  topo.source = TopoSource::kLive;
  topo.host = HostName(root);
  topo.numa = ReadNumaNodes(root);
  topo.online_cpus = ReadOnlineCpus(root);
  ReadCpuInfo(root, topo.cpu_vendor, topo.cpu_model);
  topo.nvml_error = nvml_error;
  if (gpus) AddNvmlGpus(*gpus, topo);
  if (topo.gpus.empty()) AddSysfsGpus(root, topo);
  if (topo.driver_version.empty())
    if (auto v = root.Read("proc/driver/nvidia/version"))
      topo.driver_version = DriverVersionFromProc(*v);
  topo.nics = ReadNics(root);
  AddPciFacts(root, topo, options.acs);
  if (gpus && options.processes && topo.gpu_source == "nvml") AddGpuProcesses(*gpus, root, topo);
  return topo;
}

Topology ProbeLiveTopology(const ProbeOptions& options) {
  std::unique_ptr<NvmlGpuSource> nvml;
  std::string why = "not opened for a fake root";
  if (options.root == "/") {
    auto s = NvmlGpuSource::Open();
    if (s)
      nvml = std::move(*s);
    else
      why = s.error().message;
  }
  return ProbeTopology(options, nvml.get(), nvml ? std::string() : why);
}

}  // namespace commdx::probe
