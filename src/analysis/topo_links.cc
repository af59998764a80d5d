// topo.pcie_only and topo.nvlink_degraded: is there NVLink between the GPUs, and are all of its
// links up? A degraded NVLink is silent (NCCL just runs slower), so it is an error.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <vector>

#include "analysis/catalogue.h"
#include "analysis/expected_bandwidth.h"
#include "analysis/topo_analyzers.h"
#include "analysis/topo_common.h"

namespace commdx::analysis {

namespace {

// True when NVLink alone joins all `n` GPUs in one ring and each GPU has the same number of
// NVLink peers (a hybrid cube-mesh: DGX-1, 8 GPUs with 4 peers each). NCCL then builds its rings
// and trees on NVLink only, so the pairs without NVLink carry no all-reduce, all-gather or
// reduce-scatter traffic; a lost link would leave its GPUs with fewer peers than the rest.
// Searched for up to 16 GPUs (a subset search over 2^n sets); beyond that, false.
bool NvLinkRingByDesign(const Topology& t) {
  const size_t n = t.gpus.size();
  if (n < 3 || n > 16) return false;
  std::vector<uint32_t> peers(n, 0);
  for (const auto& p : t.pairs)
    if (p.nvlinks > 0 && p.a >= 0 && p.b >= 0 && static_cast<size_t>(p.a) < n &&
        static_cast<size_t>(p.b) < n && p.a != p.b)
      peers[p.a] |= 1u << p.b, peers[p.b] |= 1u << p.a;
  const int degree = std::popcount(peers[0]);
  for (uint32_t m : peers)
    if (std::popcount(m) != degree) return false;
  if (degree < 2) return false;
  // reach[set] = the GPUs a path from GPU 0 through exactly `set` can end at.
  std::vector<uint32_t> reach(size_t{1} << n, 0);
  reach[1] = 1;
  for (uint32_t set = 1; set < reach.size(); set += 2)
    for (size_t v = 0; v < n; ++v)
      if (reach[set] >> v & 1)
        for (uint32_t next = peers[v] & ~set; next != 0; next &= next - 1)
          reach[set | (next & -next)] |= next & -next;
  return (reach.back() & peers[0]) != 0;
}

}  // namespace

std::vector<Finding> FindTopoPcieOnly(const Job& job, const Options&) {
  const Topology& t = job.topo;
  if (t.gpus.size() < 2 || !KnowsNvLinks(t)) return {};
  std::vector<const GpuPair*> pcie;
  size_t known = 0;
  for (const auto& p : t.pairs) {
    if (p.path == PathType::kUnknown) continue;
    ++known;
    if (p.nvlinks == 0) pcie.push_back(&p);
  }
  if (pcie.empty()) return {};
  bool all = pcie.size() == known;
  // NVLink bridges join PCIe cards two by two: each GPU has at most one NVLink partner. Then the
  // pairs between the bridged pairs are PCIe by design; only a GPU left without a partner where
  // the count is even may have lost its bridge.
  std::map<int, int> partners;
  for (const auto& p : t.pairs)
    if (p.nvlinks > 0) ++partners[p.a], ++partners[p.b];
  bool bridged_pairs = !all && !partners.empty();
  for (const auto& [gpu, n] : partners) bridged_pairs = bridged_pairs && n == 1;
  std::vector<int> alone;
  for (size_t g = 0; g < t.gpus.size(); ++g)
    if (!partners.count(static_cast<int>(g))) alone.push_back(static_cast<int>(g));
  const bool by_design = bridged_pairs && alone.size() == t.gpus.size() % 2;
  const bool ring = !all && !by_design && NvLinkRingByDesign(t);
  Finding f = NewFinding("topo.pcie_only");
  bool name_known = !t.gpus[0].name.empty();
  bool nvlink_model = NvLinkGenerationForGpuName(t.gpus[0].name) > 0;
  // A model without NVLink (L40S, L4, RTX) on PCIe is as designed: worth knowing, not a fault.
  bool expected = all && name_known && !nvlink_model;
  f.severity = expected ? Severity::kInfo : Severity::kWarning;
  f.title = all ? "GPUs are connected by PCIe only (no NVLink)"
                : std::to_string(pcie.size()) + " of " + std::to_string(known) +
                      " GPU pairs have no NVLink: a ring through them runs at PCIe speed";
  ExpectedBandwidth worst;
  std::map<std::string, int> by_path;
  std::string undecided;  // why NCCL's choice is open for pairs said "P2P or SHM"
  for (const GpuPair* p : pcie) {
    ExpectedBandwidth e = ExpectedForPath(t, p->a, p->b, JobNcclVersion(job));
    if (e.known && (!worst.known || e.busbw_high_gbps < worst.busbw_high_gbps)) worst = e;
    if (e.nccl_path == NcclPath::kP2POrShm && undecided.empty()) undecided = e.nccl_path_why;
    ++by_path[PathTypeName(p->pcie_path != PathType::kUnknown ? p->pcie_path : p->path)];
    std::string text =
        PairLabel(*p) + ": " + PathTypeName(p->path) + ", NCCL " + NcclPathName(e.nccl_path);
    if (e.known)
      text += ", expect ~" + std::to_string(static_cast<int>(e.busbw_high_gbps)) + " GB/s busbw";
    f.refs.push_back(Ref(p->loc, text));
  }
  std::string paths;
  for (const auto& [path, n] : by_path)
    paths += (paths.empty() ? "" : ", ") + std::to_string(n) + "x " + path;
  f.detail = "Facts from " + FactsSource(t) + ". Pairs without NVLink: " + paths +
             ". Over PCIe NCCL reaches about 20-35 GB/s bus bandwidth per GPU (10x below an "
             "NVLink4 box). Where the path crosses the CPU (PHB/NODE/SYS) NCCL uses P2P by "
             "default only on AMD CPUs (from NCCL 2.23 on: with at most two GPUs), else it copies "
             "through host memory (SHM).";
  if (!undecided.empty()) f.detail += " Pairs said 'P2P or SHM': " + undecided + ".";
  // nvidia-smi's P2P matrix says NS/CNS/GNS/TNS for a pair under one switch: no P2P where the
  // path allows it (a GeForce driver, ACS or the IOMMU), so NCCL copies through host memory.
  int blocked_near = 0;
  for (const GpuPair* p : pcie) {
    const PathType path = p->pcie_path != PathType::kUnknown ? p->pcie_path : p->path;
    auto no = [](P2PStatus st) { return st != P2PStatus::kOk && st != P2PStatus::kUnknown; };
    if ((path == PathType::kPix || path == PathType::kPxb) &&
        (no(p->p2p_read) || no(p->p2p_write) || no(p->p2p_pci)))
      ++blocked_near;
  }
  if (blocked_near > 0) {
    f.detail += " nvidia-smi topo -p2p says P2P is not supported for " +
                std::to_string(blocked_near) +
                " pair(s) under one PCIe switch (PIX/PXB), where the path allows it: NCCL copies "
                "through host memory (SHM) at about half the PCIe rate. Causes: a driver that "
                "does not offer P2P for the GPU model (consumer GeForce cards), PCIe ACS or the "
                "IOMMU redirecting peer traffic.";
    f.metrics.push_back(
        {"p2p_unsupported_near_pairs", static_cast<double>(blocked_near), Unit::kPairs});
    expected = false;  // as designed or not, the pairs lose half their bandwidth
    f.severity = Severity::kWarning;
  }
  if (by_design && blocked_near == 0) {
    f.severity = Severity::kInfo;
    std::string pairs, lone;
    for (const auto& p : t.pairs)
      if (p.nvlinks > 0)
        pairs += (pairs.empty() ? "" : ", ") + std::to_string(p.a) + "-" + std::to_string(p.b);
    if (!alone.empty())
      lone = " GPU " + std::to_string(alone.front()) + " has no partner: the GPU count is odd.";
    f.title = "GPUs are NVLink-bridged in pairs (" + pairs + "); " + f.title;
    f.detail +=
        " Each GPU has at most one NVLink partner: bridges join the cards two by two, so "
        "the other pairs are PCIe by design, not a missing link." +
        lone;
  }
  if (ring && blocked_near == 0) {
    f.severity = Severity::kInfo;
    f.title = "NVLink joins every GPU in a ring (a cube-mesh); " +
              f.title.substr(0, f.title.find(':')) +
              ": only point-to-point traffic between them crosses PCIe";
    f.detail +=
        " Every GPU has the same number of NVLink peers and NVLink alone joins all of them in a "
        "ring, as in a hybrid cube-mesh (DGX-1): NCCL builds its rings and trees on NVLink, so "
        "all-reduce, all-gather and reduce-scatter do not use these pairs. Point-to-point "
        "traffic between them (send/recv of pipeline stages, all-to-all) goes over PCIe.";
  }
  if (expected)
    f.detail += " This GPU model (" + t.gpus[0].name +
                ") is not known to have NVLink, so this is "
                "expected; it matters when comparing against NVLink machines.";
  if (worst.known) {
    f.metrics.push_back({"expected_busbw", worst.busbw_high_gbps, Unit::kGBps});
    f.metrics.push_back({"pcie_line_rate", worst.line_rate_gbps, Unit::kGBps});
  }
  f.metrics.push_back({"pcie_pairs", static_cast<double>(pcie.size()), Unit::kPairs});
  f.fix =
      all ? "Expect PCIe-level bandwidth; for communication-heavy training use NVLink/NVSwitch "
            "machines, keep GPUs that talk most under the same PCIe switch (PIX), and check "
            "`commdx topo` for P2P status and ACS."
      : ring && blocked_near == 0
          ? "Nothing to fix for collectives. Give pipeline neighbours and other ranks that "
            "exchange point-to-point data NVLink-connected GPUs (CUDA_VISIBLE_DEVICES order)."
      : by_design && blocked_near == 0
          ? "Keep the ranks that talk most (a tensor-parallel pair, pipeline neighbours) on a "
            "bridged pair (CUDA_VISIBLE_DEVICES order); collectives over more GPUs run at PCIe "
            "speed on this machine."
          : "Check the NVLink bridges/cabling of the pairs listed; place communicating ranks on "
            "NVLink-connected GPUs (CUDA_VISIBLE_DEVICES order).";
  f.confidence = t.source == TopoSource::kLive ? 1.0 : 0.9;
  return {f};
}

namespace {

void DegradedGpus(const Topology& t, std::vector<Finding>& out) {
  // Some boards list link slots they never use (bridged PCIe cards), so inactive links count
  // only against what the healthiest peer shows.
  auto down_links = [](const Gpu& g) {
    std::vector<int> down;
    for (const auto& l : g.nvlinks)
      if (l.active.has_value() && !*l.active) down.push_back(l.link);
    return down;
  };
  int max_active = 0;
  size_t min_down = SIZE_MAX;
  for (const auto& g : t.gpus) {
    max_active = std::max(max_active, g.ActiveNvLinks());
    if (g.ActiveNvLinks() > 0) min_down = std::min(min_down, down_links(g).size());
  }
  if (max_active == 0 || t.gpus.size() < 2) return;
  for (const auto& g : t.gpus) {
    int active = g.ActiveNvLinks();
    std::vector<int> down = down_links(g);
    if (active == max_active && down.size() <= min_down) continue;
    if (active == 0 && g.nvlinks.empty()) continue;  // nothing listed for it
    Finding f = NewFinding("topo.nvlink_degraded");
    f.severity = Severity::kError;
    f.title = GpuLabel(g) + " has " + std::to_string(active) + " active NVLinks, its peers " +
              std::to_string(max_active);
    if (active == max_active)
      f.title = GpuLabel(g) + " lists " + std::to_string(down.size()) + " inactive NVLinks";
    std::string list;
    for (int l : down) list += (list.empty() ? "" : ", ") + std::to_string(l);
    f.detail = "Links listed inactive: " + (list.empty() ? std::string("none") : list) +
               ". Every collective through this GPU runs at the speed of its remaining links "
               "(NCCL does not warn). Facts from " +
               FactsSource(t) + ".";
    f.metrics = {{"active_links", static_cast<double>(active), Unit::kLinks},
                 {"peer_links", static_cast<double>(max_active), Unit::kLinks}};
    f.refs.push_back(Ref(g.loc, GpuLabel(g) + " " + g.name + ": " + std::to_string(active) + "/" +
                                    std::to_string(g.nvlinks.size()) + " links active"));
    f.fix = "Check `nvidia-smi nvlink -s -i " + std::to_string(g.index) +
            "` and `nvidia-smi nvlink -e`; reseat/replace the NVLink bridge or have the node "
            "serviced (a GPU reset or reboot sometimes retrains links). Drain the node meanwhile.";
    out.push_back(std::move(f));
  }
}

// In a fully NVLink-connected box (NVSwitch or 2 GPUs) every pair should have as many links.
void DegradedPairs(const Topology& t, const std::vector<Finding>& per_gpu,
                   std::vector<Finding>& out) {
  int max_links = 0;
  for (const auto& p : t.pairs) {
    if (p.nvlinks == 0)
      return;  // not fully connected (e.g. hybrid cube mesh): counts differ by design
    max_links = std::max(max_links, p.nvlinks);
  }
  std::vector<const GpuPair*> low;
  for (const auto& p : t.pairs)
    if (p.nvlinks < max_links) low.push_back(&p);
  if (low.empty() || !per_gpu.empty()) return;  // per-GPU findings already name the cause
  Finding f = NewFinding("topo.nvlink_degraded");
  f.severity = Severity::kError;
  f.title = std::to_string(low.size()) + " GPU pairs have fewer NVLinks (NV" +
            std::to_string(low.front()->nvlinks) + ") than the others (NV" +
            std::to_string(max_links) + ")";
  f.detail =
      "In a fully NVLink-connected node every pair normally shows the same NV# in "
      "`nvidia-smi topo -m`; fewer links mean a link or NVSwitch port is down.";
  for (const GpuPair* p : low)
    f.refs.push_back(Ref(p->loc, PairLabel(*p) + ": NV" + std::to_string(p->nvlinks)));
  f.metrics = {{"fewest_links", static_cast<double>(low.front()->nvlinks), Unit::kLinks},
               {"peer_links", static_cast<double>(max_links), Unit::kLinks}};
  f.fix =
      "Run `nvidia-smi nvlink -s` on the node to find the GPU with inactive links; have the "
      "node serviced.";
  out.push_back(std::move(f));
}

}  // namespace

std::vector<Finding> FindTopoNvlinkDegraded(const Job& job, const Options&) {
  std::vector<Finding> out;
  DegradedGpus(job.topo, out);
  std::vector<Finding> pairs;
  DegradedPairs(job.topo, out, pairs);
  for (auto& f : pairs) out.push_back(std::move(f));
  return out;
}

}  // namespace commdx::analysis
