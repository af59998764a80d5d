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

// Which transport NCCL picks by default for a PCIe pair, and why in a few words. NCCL's rule
// (NVIDIA/nccl src/graph/paths.cc, ncclTopoCheckP2p; docs/findings/live.md): P2P up to PXB on
// every CPU; across the CPU (PHB, NODE, SYS) only on AMD with at most two GPUs from 2.23 on,
// and everywhere but Intel, Zhaoxin and ARM before 2.23; then NVML's P2P status must be OK.
struct PcieChoice {
  NcclPath path = NcclPath::kP2PPcie;
  std::string why;
};

// NCCL 2.23.4 made PXB the default P2P level on every CPU, with P2P across the CPU kept only for
// AMD with at most two GPUs.
constexpr int kNcclPxbDefault = 22304;

PcieChoice ChoosePcie(const LinkSpec& s) {
  const std::string path = PathTypeName(s.pcie_path);
  if (s.p2p_blocked)
    return {NcclPath::kShm, "P2P not supported between them: SHM through host memory"};
  if (!s.p2p_ok && s.gpu_name.find("GeForce") != std::string::npos)
    return {NcclPath::kShm,
            "GeForce: NVIDIA's driver offers no P2P between GeForce cards, so NCCL uses SHM "
            "through host memory (unless `nvidia-smi topo -p2p r` says OK)"};
  if (!PathCrossesCpu(s.pcie_path))
    return {NcclPath::kP2PPcie, "P2P over PCIe (path " + path + ")"};
  const std::string crosses = "path " + path + " crosses the CPU: ";
  const bool version_known = s.nccl_version > 0;
  const bool pxb_default = s.nccl_version >= kNcclPxbDefault;
  const std::string nccl =
      version_known ? "NCCL " + std::to_string(s.nccl_version / 10000) + "." +
                          std::to_string(s.nccl_version / 100 % 100) + "." +
                          std::to_string(s.nccl_version % 100) + " (the job's) "
                    : std::string();
  switch (s.cpu) {
    case CpuVendor::kIntel:
    case CpuVendor::kZhaoxin:
    case CpuVendor::kArm:
      return {NcclPath::kShm,
              crosses +
                  "NCCL stops P2P at PXB on Intel, Zhaoxin and ARM CPUs: SHM through host memory"};
    case CpuVendor::kAmd:
      if (s.gpus <= 2)
        return {NcclPath::kP2PPcie, crosses + "NCCL allows P2P there on AMD CPUs with two GPUs"};
      if (version_known)
        return pxb_default
                   ? PcieChoice{NcclPath::kShm, crosses + nccl +
                                                    "uses SHM there on AMD CPUs with more than "
                                                    "two GPUs (2.23 and later)"}
                   : PcieChoice{NcclPath::kP2PPcie,
                                crosses + nccl + "uses P2P there on AMD CPUs (before 2.23)"};
      return {NcclPath::kP2POrShm,
              crosses +
                  "on AMD CPUs with more than two GPUs NCCL 2.23 and later use SHM, older "
                  "versions P2P"};
    case CpuVendor::kOther:
      if (version_known)
        return pxb_default
                   ? PcieChoice{NcclPath::kShm,
                                crosses + nccl + "uses SHM there on this CPU (2.23 and later)"}
                   : PcieChoice{NcclPath::kP2PPcie,
                                crosses + nccl + "uses P2P there on this CPU (before 2.23)"};
      return {NcclPath::kP2POrShm,
              crosses + "NCCL 2.23 and later use SHM on this CPU, older versions P2P"};
    case CpuVendor::kUnknown:
      break;
  }
  if (pxb_default && s.gpus > 2)
    return {NcclPath::kShm, crosses + nccl +
                                "uses SHM there with more than two GPUs, whatever the CPU (2.23 "
                                "and later)"};
  if (s.gpus <= 2)
    return {NcclPath::kP2POrShm, crosses +
                                     "the CPU vendor is not in this input; NCCL uses P2P there on "
                                     "AMD CPUs, SHM on Intel, Zhaoxin and ARM"};
  return {NcclPath::kP2POrShm,
          crosses +
              "the CPU vendor and NCCL version are not in this input; NCCL 2.23 and later use SHM "
              "there with more than two GPUs, older versions P2P on AMD CPUs and SHM on Intel, "
              "Zhaoxin and ARM"};
}

ExpectedBandwidth ForPcie(const LinkSpec& s) {
  ExpectedBandwidth e;
  int width = s.pcie_width > 0 ? s.pcie_width : 16;
  e.link = s.pcie_gen ? "PCIe Gen" + std::to_string(s.pcie_gen) + " x" + std::to_string(width)
                      : std::string("PCIe (generation unknown)");
  double raw = PcieRawGbps(s.pcie_gen) * width / 16.0;
  PcieChoice choice = ChoosePcie(s);
  e.nccl_path = choice.path;
  e.nccl_path_why = choice.why;
  if (raw <= 0) {
    e.basis = "PCIe generation unknown: no rate to expect; " + choice.why;
    return e;
  }
  e.known = true;
  e.line_rate_gbps = raw;
  e.nccl_model_gbps = PcieNcclModelGbps(s.pcie_gen) * width / 16.0;
  const bool p2p = choice.path == NcclPath::kP2PPcie, shm = choice.path == NcclPath::kShm;
  e.busbw_low_gbps = (p2p ? kPcieP2PLow : kShmLow) * raw;
  e.busbw_high_gbps = (shm ? kShmHigh : kPcieP2PHigh) * raw;
  e.confidence = s.pcie_path == PathType::kUnknown ? 0.5 : 0.7;
  e.basis = e.link +
            Fmt(": %.0f GB/s per direction raw, NCCL models %.0f; ", raw, e.nccl_model_gbps) +
            choice.why + Fmt("; busbw ~%.0f-%.0f", e.busbw_low_gbps, e.busbw_high_gbps);
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
    case NcclPath::kP2POrShm:
      return "P2P or SHM";
    case NcclPath::kNetIB:
      return "NET/IB";
    case NcclPath::kNetSocket:
      return "NET/Socket";
    case NcclPath::kUnknown:
      break;
  }
  return "unknown";
}

CpuVendor CpuVendorOf(const std::string& vendor_id) {
  if (vendor_id.empty()) return CpuVendor::kUnknown;
  if (vendor_id == "GenuineIntel") return CpuVendor::kIntel;
  if (vendor_id == "AuthenticAMD") return CpuVendor::kAmd;
  if (vendor_id == "CentaurHauls" || vendor_id.find("Shanghai") != std::string::npos)
    return CpuVendor::kZhaoxin;
  // /proc/cpuinfo on ARM has no vendor_id: an ARM machine reads as unknown (the probe does not
  // tell the architecture yet), which says "P2P or SHM" rather than a wrong "P2P".
  return CpuVendor::kOther;
}

int NcclVersionCode(const std::string& version) {
  int major = 0, minor = 0, patch = 0;
  char tail = 0;
  if (std::sscanf(version.c_str(), "%d.%d.%d%c", &major, &minor, &patch, &tail) < 3) return 0;
  if (major < 1 || major > 99 || minor < 0 || minor > 99 || patch < 0 || patch > 99) return 0;
  return major * 10000 + minor * 100 + patch;
}

int JobNcclVersion(const Job& job) {
  int code = 0;
  for (const NcclProcess& p : job.nccl.processes) {
    const int v = NcclVersionCode(p.version);
    if (v == 0) continue;
    if (code != 0 && v != code) return 0;
    code = v;
  }
  return code;
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

ExpectedBandwidth ExpectedForPath(const Topology& topo, int gpu_a, int gpu_b, int nccl_version) {
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
  s.p2p_blocked = Blocked(pair->p2p_read) || Blocked(pair->p2p_write) || Blocked(pair->p2p_pci);
  // Any capability said OK (a status that is not OK already made the pair blocked).
  s.p2p_ok = pair->p2p_read == P2PStatus::kOk || pair->p2p_write == P2PStatus::kOk;
  s.cpu = CpuVendorOf(topo.cpu_vendor);
  s.gpus = static_cast<int>(topo.gpus.size());
  s.nccl_version = nccl_version;
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
  const int version = JobNcclVersion(job);
  ExpectedBandwidth slowest;
  slowest.basis = "no GPU pair with a known link";
  for (const auto& p : topo.pairs) {
    ExpectedBandwidth e = ExpectedForPath(topo, p.a, p.b, version);
    if (!e.known) continue;
    if (!slowest.known || e.busbw_high_gbps < slowest.busbw_high_gbps) slowest = e;
  }
  if (slowest.known && topo.pairs.size() > 1)
    slowest.basis =
        "slowest of " + std::to_string(topo.pairs.size()) + " GPU pairs: " + slowest.basis;
  return slowest;
}

}  // namespace commdx::analysis
