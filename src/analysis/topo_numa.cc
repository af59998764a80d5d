// topo.numa_split: the GPUs of one node sit on two or more NUMA nodes (CPU sockets), and GPU
// pairs across the split have no NVLink, so their traffic crosses the link between the sockets.
//
// The groups come from each GPU's NUMA node (`nvidia-smi topo -m`'s NUMA Affinity column, or
// sysfs live); where no GPU has one, from CPU Affinity sets that do not overlap. A pair across
// the split without NVLink is SYS in nvidia-smi's words: NCCL sends it through host memory on
// most machines (expected_bandwidth.cc says when), and every ring or tree that spans both groups
// crosses the inter-socket link. Ranks that talk most belong in one group.
#include <algorithm>
#include <map>
#include <optional>

#include "analysis/catalogue.h"
#include "analysis/expected_bandwidth.h"
#include "analysis/topo_analyzers.h"
#include "analysis/topo_common.h"

namespace commdx::analysis {

namespace {

struct Group {
  std::string label;      // "NUMA node 0" or "CPUs 0-55,112-167"
  std::string cpus;       // CPU affinity of its GPUs as nvidia-smi or sysfs tells it
  std::vector<int> gpus;  // GPU indices
  const Gpu* first = nullptr;
};

// GPU index -> group number; the groups in order of their first GPU. Empty when the GPUs do not
// name their NUMA node or CPU affinity, or their affinity sets overlap (no clean split).
std::vector<Group> SplitGpus(const Topology& t, std::map<int, size_t>& group_of) {
  std::vector<Group> groups;
  const bool by_numa = std::any_of(t.gpus.begin(), t.gpus.end(),
                                   [](const Gpu& g) { return g.numa_node.has_value(); });
  std::map<std::string, size_t> index;
  for (const auto& g : t.gpus) {
    std::string key;
    if (by_numa && g.numa_node)
      key = "NUMA node " + std::to_string(*g.numa_node);
    else if (!by_numa && !g.cpu_affinity.empty())
      key = "CPUs " + g.cpu_affinity;
    if (key.empty()) continue;
    auto [it, added] = index.emplace(key, groups.size());
    if (added) groups.push_back({key, g.cpu_affinity, {}, &g});
    groups[it->second].gpus.push_back(g.index);
    group_of[g.index] = it->second;
  }
  if (!by_numa) {  // affinity strings that differ but share CPUs are no split
    std::vector<int> seen;
    for (const auto& grp : groups) {
      auto cpus = ParseCpuList(grp.cpus);
      if (!cpus) return {};
      for (int c : *cpus)
        if (std::find(seen.begin(), seen.end(), c) != seen.end()) return {};
      seen.insert(seen.end(), cpus->begin(), cpus->end());
    }
  }
  return groups;
}

std::string GpuList(std::vector<int> gpus) {
  std::sort(gpus.begin(), gpus.end());
  return (gpus.size() == 1 ? "GPU " : "GPUs ") + FormatCpuList(gpus);
}

std::string Paths(const std::map<std::string, int>& by_path) {
  std::string s;
  for (const auto& [path, n] : by_path)
    s += (s.empty() ? "" : ", ") + std::to_string(n) + "x " + path;
  return s;
}

}  // namespace

std::vector<Finding> FindTopoNumaSplit(const Job& job, const Options&) {
  const Topology& t = job.topo;
  if (t.gpus.size() < 2) return {};
  std::map<int, size_t> group_of;
  std::vector<Group> groups = SplitGpus(t, group_of);
  if (groups.size() < 2) return {};
  std::vector<const GpuPair*> across;
  std::map<std::string, int> across_paths, within_paths;
  for (const auto& p : t.pairs) {
    auto ga = group_of.find(p.a), gb = group_of.find(p.b);
    if (ga == group_of.end() || gb == group_of.end()) continue;
    const char* path = p.nvlinks > 0 ? "NVLink" : PathTypeName(p.path);
    if (ga->second == gb->second) {
      ++within_paths[path];
      continue;
    }
    if (p.nvlinks > 0) continue;  // NVLink does not touch the sockets' link
    ++across_paths[path];
    across.push_back(&p);
  }
  if (across.empty()) return {};
  Finding f = NewFinding("topo.numa_split");
  f.severity = Severity::kWarning;
  f.confidence = t.source == TopoSource::kLive ? 1.0 : 0.9;  // as sure as topo.pcie_only
  std::string where;
  for (const auto& g : groups)
    where += (where.empty() ? "" : ", ") + GpuList(g.gpus) + " on " + g.label;
  f.title = "GPUs sit on " + std::to_string(groups.size()) +
            (groups[0].label.rfind("NUMA", 0) == 0 ? " NUMA nodes: " : " CPU sets: ") + where;
  ExpectedBandwidth e = ExpectedForPath(t, across[0]->a, across[0]->b, JobNcclVersion(job));
  f.detail = std::to_string(across.size()) + " of " + std::to_string(t.pairs.size()) +
             " GPU pairs lie across the split without NVLink (" + Paths(across_paths) +
             "): their traffic crosses the link between the CPU sockets (UPI on Intel, Infinity "
             "Fabric on AMD) and host memory, and every ring over GPUs of both groups crosses it "
             "at least twice. NCCL's path for such a pair: " +
             (e.nccl_path == NcclPath::kUnknown ? std::string("unknown")
                                                : std::string(NcclPathName(e.nccl_path))) +
             (e.nccl_path_why.empty() ? "" : " (" + e.nccl_path_why + ")") + ".";
  if (!within_paths.empty()) f.detail += " Pairs within one group: " + Paths(within_paths) + ".";
  if (within_paths.size() == 1 && across_paths.size() == 1 &&
      within_paths.begin()->first == across_paths.begin()->first)
    f.detail +=
        " nvidia-smi gives both the same path: the affinity columns are what tell the groups "
        "apart.";
  f.detail += " Facts from " + FactsSource(t) + ".";
  for (const auto& g : groups)
    f.refs.push_back(Ref(
        g.first->loc,
        GpuList(g.gpus) + ": " + g.label +
            (g.cpus.empty() || g.label.rfind("CPUs", 0) == 0 ? "" : ", CPU affinity " + g.cpus)));
  f.refs.push_back(
      Ref(across[0]->loc,
          PairLabel(*across[0]) + ": " + PathTypeName(across[0]->path) + ", across the split" +
              (across.size() > 1 ? " (and " + std::to_string(across.size() - 1) + " more pairs)"
                                 : "")));
  f.metrics = {{"numa_groups", static_cast<double>(groups.size()), Unit::kCount},
               {"pairs_across", static_cast<double>(across.size()), Unit::kPairs}};
  std::string each, one_list;
  for (const auto& g : groups) each += (each.empty() ? "" : " or ") + GpuList(g.gpus);
  for (int g : groups[0].gpus) one_list += (one_list.empty() ? "" : ",") + std::to_string(g);
  f.fix =
      "Keep the ranks that talk most within one group: a tensor-parallel group or a "
      "pipeline-stage pair on " +
      each + " (e.g. `CUDA_VISIBLE_DEVICES=" + one_list +
      "`), not split across the sockets; let only less frequent traffic (data-parallel "
      "gradients) cross. Bind each rank's CPU and memory to its GPU's node (`numactl "
      "--cpunodebind=N --membind=N`); under Kubernetes the topology manager aligns GPUs "
      "with CPUs. A job that must span both groups is bounded by the inter-socket path.";
  return {f};
}

}  // namespace commdx::analysis
