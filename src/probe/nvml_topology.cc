// Raw NVML answers -> Topology: GPUs, their NVLinks, the NVLink count of each pair (from the
// links' remote PCI addresses, or through NVSwitch), P2P status and common PCIe ancestor.
#include <algorithm>

#include "probe/topology_probe.h"

namespace commdx::probe {

P2PStatus P2PStatusFromNvml(unsigned code) {
  switch (code) {
    case 0:
      return P2PStatus::kOk;
    case 1:
      return P2PStatus::kChipsetNotSupported;
    case 2:
      return P2PStatus::kGpuNotSupported;
    case 3:
      return P2PStatus::kTopologyNotSupported;
    case 4:
      return P2PStatus::kDisabledByRegKey;
    case 5:
      return P2PStatus::kNotSupported;
    default:
      return P2PStatus::kUnknown;
  }
}

PathType PathFromNvmlAncestor(unsigned level) {
  if (level <= 10) return PathType::kPix;  // INTERNAL (one board) or SINGLE
  if (level <= 20) return PathType::kPxb;
  if (level <= 30) return PathType::kPhb;
  if (level <= 40) return PathType::kNode;
  return PathType::kSys;
}

int NvLinkGenerationFromNvml(unsigned version) {
  // nvmlNvlinkVersion_t: 1 = 1.0, 2 = 2.0, 3 = 2.2, 4 = 3.0, 5 = 3.1, 6 = 4.0, 7 = 5.0
  static constexpr int kGen[] = {0, 1, 2, 2, 3, 3, 4, 5};
  return version < 8 ? kGen[version] : 0;
}

double NvLinkSpeedForGeneration(int generation) {
  switch (generation) {
    case 1:
      return 20.0;
    case 2:
      return 25.781;
    case 3:
      return 25.0;
    case 4:
      return 26.562;
    case 5:
      return 50.0;
    default:
      return 0;
  }
}

namespace {

const char* ComputeModeName(unsigned m) {
  switch (m) {
    case 0:
      return "Default";
    case 1:
      return "Exclusive_Thread";
    case 2:
      return "Prohibited";
    case 3:
      return "Exclusive_Process";
    default:
      return "Unknown";
  }
}

Gpu ToGpu(int index, const RawDevice& d) {
  Gpu g;
  g.index = index;
  g.name = d.name;
  g.uuid = d.uuid;
  g.bus_id = NormalizeBusId(d.bus_id);
  g.pcie.cur_gen = static_cast<int>(d.pcie_cur_gen.value_or(0));
  g.pcie.max_gen = static_cast<int>(d.pcie_max_gen.value_or(0));
  g.pcie.cur_width = static_cast<int>(d.pcie_cur_width.value_or(0));
  g.pcie.max_width = static_cast<int>(d.pcie_max_width.value_or(0));
  if (d.numa_node) g.numa_node = static_cast<int>(*d.numa_node);
  if (d.mig_current) g.mig_enabled = *d.mig_current == 1;
  if (d.ecc_current) g.ecc_enabled = *d.ecc_current == 1;
  if (d.persistence) g.persistence_mode = *d.persistence == 1;
  if (d.compute_mode) g.compute_mode = ComputeModeName(*d.compute_mode);
  g.clock_event_reasons = d.clock_event_reasons;
  int by_name = NvLinkGenerationForGpuName(d.name);
  for (const auto& l : d.nvlinks) {
    NvLinkState s;
    s.link = l.link;
    s.active = l.active;
    s.version = by_name ? by_name : NvLinkGenerationFromNvml(l.version);
    s.remote_bus_id = l.remote_bus_id.empty() ? "" : NormalizeBusId(l.remote_bus_id);
    s.remote_is_switch = l.remote_type && *l.remote_type == 2;
    if (l.active)
      s.speed_gbps =
          d.nvlink_speed_mbps ? *d.nvlink_speed_mbps / 1000.0 : NvLinkSpeedForGeneration(s.version);
    s.replay_errors = l.replay;
    s.recovery_errors = l.recovery;
    s.crc_flit_errors = l.crc_flit;
    s.crc_data_errors = l.crc_data;
    g.nvlinks.push_back(s);
  }
  return g;
}

// Active links of `g` that end on `peer` (direct) or on an NVSwitch (any GPU behind it).
int LinksTo(const Gpu& g, const Gpu& peer, int* via_switch) {
  int direct = 0;
  *via_switch = 0;
  for (const auto& l : g.nvlinks) {
    if (!l.active.value_or(false)) continue;
    if (!l.remote_bus_id.empty() && l.remote_bus_id == peer.bus_id)
      ++direct;
    else if (l.remote_is_switch)
      ++*via_switch;
  }
  return direct;
}

}  // namespace

void AddNvmlGpus(GpuSource& source, Topology& topo) {
  if (auto sys = source.System()) {
    topo.driver_version = sys->driver_version;
    topo.cuda_driver_version = sys->cuda_driver_version;
  }
  auto count = source.DeviceCount();
  if (!count) {
    topo.nvml_error = count.error().message;
    return;
  }
  topo.gpu_source = "nvml";
  for (int i = 0; i < *count; ++i) {
    auto d = source.Device(i);
    if (!d) {
      topo.nvml_error = d.error().message;
      continue;
    }
    topo.gpus.push_back(ToGpu(i, *d));
  }
  for (size_t i = 0; i < topo.gpus.size(); ++i) {
    for (size_t j = i + 1; j < topo.gpus.size(); ++j) {
      const Gpu& a = topo.gpus[i];
      const Gpu& b = topo.gpus[j];
      GpuPair& p = topo.PairAt(a.index, b.index);
      int sw_a = 0, sw_b = 0;
      int direct = LinksTo(a, b, &sw_a);
      LinksTo(b, a, &sw_b);
      p.nvlinks = direct + std::min(sw_a, sw_b);
      if (auto raw = source.Pair(a.index, b.index)) {
        if (raw->read) p.p2p_read = P2PStatusFromNvml(*raw->read);
        if (raw->write) p.p2p_write = P2PStatusFromNvml(*raw->write);
        if (raw->nvlink) p.p2p_nvlink = P2PStatusFromNvml(*raw->nvlink);
        if (raw->atomics) p.p2p_atomics = P2PStatusFromNvml(*raw->atomics);
        if (raw->pci) p.p2p_pci = P2PStatusFromNvml(*raw->pci);
        if (raw->common_ancestor) p.pcie_path = PathFromNvmlAncestor(*raw->common_ancestor);
      }
      // NVML says NVLink P2P works but the links' far ends were not readable.
      if (p.nvlinks == 0 && p.p2p_nvlink == P2PStatus::kOk)
        p.nvlinks = std::min(a.ActiveNvLinks(), b.ActiveNvLinks());
      p.path = p.nvlinks > 0 ? PathType::kNvLink : p.pcie_path;
    }
  }
}

}  // namespace commdx::probe
