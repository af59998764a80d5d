#include "analysis/expected_bandwidth.h"

#include <algorithm>
#include <cstdio>

#include "base/str_format.h"

namespace commdx::analysis {

namespace {

// Ring all_reduce at large sizes reaches about this share of the per-direction line rate on
// NVLink (370/478 on 8xH100, 230/300 on 8xA100, 346/478 on 2xH200 measured).
constexpr double kNvLinkBusbwLow = 0.72, kNvLinkBusbwHigh = 0.78;
// PCIe P2P, and SHM (a copy through host memory each way: 27.8 GB/s measured on Gen5 x16).
constexpr double kPcieP2PLow = 0.60, kPcieP2PHigh = 0.85;
constexpr double kShmLow = 0.35, kShmHigh = 0.50;
// Per RDMA NIC (46-48 of 50 GB/s on NDR).
constexpr double kNetIbLow = 0.92, kNetIbHigh = 0.96;

std::string Fmt(const char* format, double a, double b = 0, double c = 0, double d = 0) {
  std::string buf = StrFormat(format, a, b, c, d);
  return buf;
}

ExpectedBandwidth ForNvLink(const LinkSpec& s) {
  ExpectedBandwidth e;
  e.nccl_path = NcclPath::kP2PNvLink;
  int gen = s.nvlink_generation ? s.nvlink_generation : NvLinkGenerationForGpuName(s.gpu_name);
  double per_link = s.nvlink_speed_gbps > 0 ? s.nvlink_speed_gbps : NominalNvLinkGbps(gen);
  e.link = (gen ? "NVLink" + std::to_string(gen) : std::string("NVLink")) + " x" +
           std::to_string(s.nvlinks);
  if (per_link <= 0) {
    e.basis = std::to_string(s.nvlinks) + " NVLinks of unknown generation: no rate to expect";
    return e;
  }
  e.known = true;
  e.line_rate_gbps = s.nvlinks * per_link;
  e.nccl_model_gbps = s.nvlinks * NcclModelNvLinkGbps(gen);
  e.busbw_low_gbps = kNvLinkBusbwLow * e.line_rate_gbps;
  e.busbw_high_gbps = kNvLinkBusbwHigh * e.line_rate_gbps;
  e.confidence = s.nvlink_speed_gbps > 0 ? 0.9 : (s.nvlink_generation ? 0.8 : 0.6);
  e.basis = e.link + ": " + Fmt("%.2f GB/s per link", per_link) +
            (s.nvlink_speed_gbps > 0 ? " (as read)" : " (nominal)") +
            Fmt(" = %.0f GB/s per direction; NCCL models %.1f; ring all_reduce busbw ~%.0f-%.0f",
                e.line_rate_gbps, e.nccl_model_gbps, e.busbw_low_gbps, e.busbw_high_gbps);
  return e;
}

ExpectedBandwidth ForPcie(const LinkSpec& s) {
  ExpectedBandwidth e;
  int width = s.pcie_width > 0 ? s.pcie_width : 16;
  e.link = s.pcie_gen ? "PCIe Gen" + std::to_string(s.pcie_gen) + " x" + std::to_string(width)
                      : std::string("PCIe (generation unknown)");
  double raw = PcieRawGbps(s.pcie_gen) * width / 16.0;
  bool through_cpu = PathCrossesCpu(s.pcie_path);
  bool p2p = !s.p2p_blocked && !(through_cpu && s.intel_cpu);
  e.nccl_path = p2p ? NcclPath::kP2PPcie : NcclPath::kShm;
  if (raw <= 0) {
    e.basis = "PCIe generation unknown: no rate to expect";
    return e;
  }
  e.known = true;
  e.line_rate_gbps = raw;
  e.nccl_model_gbps = PcieNcclModelGbps(s.pcie_gen) * width / 16.0;
  double lo = p2p ? kPcieP2PLow : kShmLow, hi = p2p ? kPcieP2PHigh : kShmHigh;
  e.busbw_low_gbps = lo * raw;
  e.busbw_high_gbps = hi * raw;
  e.confidence = s.pcie_path == PathType::kUnknown ? 0.5 : 0.7;
  std::string why;
  if (s.p2p_blocked)
    why = "P2P not supported between them: NCCL uses SHM through host memory";
  else if (through_cpu && s.intel_cpu)
    why = std::string("path ") + PathTypeName(s.pcie_path) +
          " crosses the CPU and NCCL stops P2P at PXB on Intel CPUs: SHM through host memory";
  else
    why = std::string("P2P over PCIe (path ") + PathTypeName(s.pcie_path) + ")";
  e.basis = e.link +
            Fmt(": %.0f GB/s per direction raw, NCCL models %.0f; ", raw, e.nccl_model_gbps) + why +
            Fmt("; busbw ~%.0f-%.0f", e.busbw_low_gbps, e.busbw_high_gbps);
  return e;
}

bool Blocked(P2PStatus s) { return s != P2PStatus::kOk && s != P2PStatus::kUnknown; }

double MeanActiveSpeed(const Gpu& g) {
  double sum = 0;
  int n = 0;
  for (const auto& l : g.nvlinks)
    if (l.active.value_or(false) && l.speed_gbps > 0) {
      sum += l.speed_gbps;
      ++n;
    }
  return n ? sum / n : 0;
}

}  // namespace

const char* NcclPathName(NcclPath p) {
  switch (p) {
    case NcclPath::kP2PNvLink:
      return "P2P/NVLink";
    case NcclPath::kP2PPcie:
      return "P2P/PCIe";
    case NcclPath::kShm:
      return "SHM";
    case NcclPath::kNetIB:
      return "NET/IB";
    case NcclPath::kNetSocket:
      return "NET/Socket";
    case NcclPath::kUnknown:
      break;
  }
  return "unknown";
}

double NominalNvLinkGbps(int generation) {
  static constexpr double kGbps[] = {0, 20, 25, 25, 25, 50};
  return generation >= 1 && generation <= 5 ? kGbps[generation] : 0;
}

double NcclModelNvLinkGbps(int generation) {
  static constexpr double kGbps[] = {0, 18, 20, 20, 20.6, 40.1};
  return generation >= 1 && generation <= 5 ? kGbps[generation] : 0;
}

double PcieRawGbps(int generation) {
  static constexpr double kGbps[] = {0, 4, 8, 16, 32, 63, 121};
  return generation >= 1 && generation <= 6 ? kGbps[generation] : 0;
}

double PcieNcclModelGbps(int generation) {
  static constexpr double kGbps[] = {0, 3, 6, 12, 24, 48, 96};
  return generation >= 1 && generation <= 6 ? kGbps[generation] : 0;
}

ExpectedBandwidth ExpectedForLink(const LinkSpec& spec) {
  return spec.nvlinks > 0 ? ForNvLink(spec) : ForPcie(spec);
}

ExpectedBandwidth ExpectedForPath(const Topology& topo, int gpu_a, int gpu_b) {
  const GpuPair* pair = topo.FindPair(gpu_a, gpu_b);
  const Gpu* a = topo.FindGpu(gpu_a);
  const Gpu* b = topo.FindGpu(gpu_b);
  ExpectedBandwidth unknown;
  if (!pair || !a || !b) {
    unknown.basis = "GPU pair not in the topology";
    return unknown;
  }
  LinkSpec s;
  s.gpu_name = a->name;
  s.nvlinks = pair->nvlinks;
  for (const auto& l : a->nvlinks)
    if (l.version) s.nvlink_generation = l.version;
  double sa = MeanActiveSpeed(*a), sb = MeanActiveSpeed(*b);
  s.nvlink_speed_gbps = (sa > 0 && sb > 0) ? std::min(sa, sb) : std::max(sa, sb);
  // Idle GPUs train their link down to save power: the maximum is what a transfer gets.
  auto gen = [](const Gpu& g) { return g.pcie.max_gen ? g.pcie.max_gen : g.pcie.cur_gen; };
  auto width = [](const Gpu& g) { return g.pcie.cur_width ? g.pcie.cur_width : g.pcie.max_width; };
  int ga = gen(*a), gb = gen(*b);
  s.pcie_gen = (ga && gb) ? std::min(ga, gb) : std::max(ga, gb);
  int wa = width(*a), wb = width(*b);
  s.pcie_width = (wa && wb) ? std::min(wa, wb) : std::max(wa, wb);
  s.pcie_path = pair->pcie_path != PathType::kUnknown ? pair->pcie_path
                : pair->path != PathType::kNvLink     ? pair->path
                                                      : PathType::kUnknown;
  s.p2p_blocked =
      Blocked(pair->p2p_read) || Blocked(pair->p2p_write) || Blocked(pair->p2p_pci);
  s.intel_cpu = topo.cpu_vendor == "GenuineIntel";
  s.gpus = static_cast<int>(topo.gpus.size());
  if (s.nvlinks == 0 && s.pcie_path == PathType::kUnknown && s.pcie_gen == 0) {
    unknown.basis = "neither NVLink nor the PCIe link of this pair is known";
    return unknown;
  }
  return ExpectedForLink(s);
}

ExpectedBandwidth ExpectedForJob(const Job& job) {
  const Topology& topo = job.topo;
  int nodes = 1;
  for (const auto& c : job.nccl.communicators) nodes = std::max(nodes, c.nnodes);
  if (nodes > 1) {
    int nics = 0;
    double rate_gbit = 0;
    for (const auto& n : topo.nics)
      if (n.kind != NicKind::kEthernet && n.state == "ACTIVE" && n.rate_gbit > 0) {
        ++nics;
        rate_gbit = rate_gbit == 0 ? n.rate_gbit : std::min(rate_gbit, n.rate_gbit);
      }
    ExpectedBandwidth e;
    e.nccl_path = NcclPath::kNetIB;
    if (nics == 0) {
      e.basis = "job spans " + std::to_string(nodes) + " nodes; no active RDMA NIC is known";
      return e;
    }
    int gpus = std::max<int>(1, static_cast<int>(topo.gpus.size()));
    double per_nic = rate_gbit / 8.0;
    double share = std::min(1.0, static_cast<double>(nics) / gpus);
    e.known = true;
    e.link = Fmt("RDMA %.0f Gb/s", rate_gbit) + " x" + std::to_string(nics);
    e.line_rate_gbps = per_nic * share;
    e.busbw_low_gbps = kNetIbLow * e.line_rate_gbps;
    e.busbw_high_gbps = kNetIbHigh * e.line_rate_gbps;
    e.confidence = 0.6;
    e.basis = e.link + Fmt(" for %.0f GPUs: %.1f GB/s per GPU per direction; busbw ~%.0f-%.0f",
                           gpus, e.line_rate_gbps, e.busbw_low_gbps, e.busbw_high_gbps);
    return e;
  }
  ExpectedBandwidth slowest;
  slowest.basis = "no GPU pair with a known link";
  for (const auto& p : topo.pairs) {
    ExpectedBandwidth e = ExpectedForPath(topo, p.a, p.b);
    if (!e.known) continue;
    if (!slowest.known || e.busbw_high_gbps < slowest.busbw_high_gbps) slowest = e;
  }
  if (slowest.known && topo.pairs.size() > 1)
    slowest.basis =
        "slowest of " + std::to_string(topo.pairs.size()) + " GPU pairs: " + slowest.basis;
  return slowest;
}

}  // namespace commdx::analysis
