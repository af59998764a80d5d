#include "analysis/topo_common.h"

#include <algorithm>

namespace commdx::analysis {

std::string GpuLabel(const Gpu& g) {
  std::string s = "GPU" + std::to_string(g.index);
  if (!g.bus_id.empty()) s += " (" + g.bus_id + ")";
  return s;
}

std::string GpuLabel(const Topology& t, int index) {
  const Gpu* g = t.FindGpu(index);
  return g ? GpuLabel(*g) : "GPU" + std::to_string(index);
}

std::string PairLabel(const GpuPair& p) {
  return "GPU" + std::to_string(p.a) + "-GPU" + std::to_string(p.b);
}

std::string ProcessLabel(const GpuProcess& p) {
  std::string s = "pid " + std::to_string(p.pid);
  std::string extra = p.name;
  if (p.rank) extra += std::string(extra.empty() ? "" : ", ") + "rank " + std::to_string(*p.rank);
  if (!extra.empty()) s += " (" + extra + ")";
  return s;
}

EvidenceRef Ref(const SourceLoc& where, std::string text) { return {where, std::move(text)}; }

std::vector<int> NumaCpus(const Topology& t, int node) {
  const NumaNode* n = t.FindNuma(node);
  if (!n) return {};
  auto cpus = ParseCpuList(n->cpulist);
  return cpus ? *cpus : std::vector<int>{};
}

bool KnowsNvLinks(const Topology& t) { return !t.gpu_source.empty() && t.gpu_source != "sysfs"; }

std::string FactsSource(const Topology& t) {
  if (t.source == TopoSource::kLive)
    return "live (" + (t.gpu_source.empty() ? "sysfs" : t.gpu_source) + ", sysfs)";
  if (t.source == TopoSource::kSnapshot) return "saved snapshot";
  return "nvidia-smi text";
}

}  // namespace commdx::analysis
