// topo.pcie_downtrained and topo.acs_enabled: the PCIe side of GPU communication.
//
// Width below the maximum is always a fault (a bad riser, slot or seating). Speed below the
// maximum is normal while a GPU idles (it trains the link down to save power), so it counts only
// when NVML says the GPU is not idle; otherwise it is mentioned with low confidence.
//
// ACS (Access Control Services) with Request/Completion Redirect on a bridge forces peer traffic
// up to the root complex: PCIe P2P between GPUs, and GPUDirect RDMA between GPU and NIC, slow
// down or fail. NCCL's docs advise turning ACS off on bare metal.
#include <algorithm>

#include "analysis/catalogue.h"
#include "analysis/topo_analyzers.h"
#include "analysis/topo_common.h"

namespace commdx::analysis {

namespace {

std::string Link(int gen, int width) {
  return "Gen" + (gen ? std::to_string(gen) : std::string("?")) + " x" +
         (width ? std::to_string(width) : std::string("?"));
}

}  // namespace

std::vector<Finding> FindTopoPcieDowntrained(const Job& job, const Options&) {
  std::vector<Finding> out;
  for (const auto& g : job.topo.gpus) {
    const PcieLinkState& l = g.pcie;
    bool narrow = l.cur_width > 0 && l.max_width > 0 && l.cur_width < l.max_width;
    bool slow = l.cur_gen > 0 && l.max_gen > 0 && l.cur_gen < l.max_gen;
    if (!narrow && !slow) continue;
    bool idle_known = g.clock_event_reasons.has_value();
    bool idle = idle_known && (*g.clock_event_reasons & clock_event::kGpuIdle);
    if (!narrow && idle) continue;  // power saving, not a fault
    Finding f = NewFinding("topo.pcie_downtrained");
    f.severity = narrow || idle_known ? Severity::kWarning : Severity::kInfo;
    f.confidence = narrow ? 1.0 : (idle_known ? 0.9 : 0.4);
    f.title = GpuLabel(g) + " PCIe link runs at " + Link(l.cur_gen, l.cur_width) + " of " +
              Link(l.max_gen, l.max_width);
    f.detail = narrow ? "The link trained to fewer lanes than it supports: host<->GPU copies and "
                        "PCIe P2P/SHM traffic through this GPU get a fraction of the bandwidth."
                      : "The link runs below its top speed while the GPU is busy (or its idle "
                        "state is unknown: idle GPUs train down to save power; check under load).";
    f.metrics = {{"current_width", static_cast<double>(l.cur_width), Unit::kLanes},
                 {"max_width", static_cast<double>(l.max_width), Unit::kLanes},
                 {"current_gen", static_cast<double>(l.cur_gen), Unit::kGeneration},
                 {"max_gen", static_cast<double>(l.max_gen), Unit::kGeneration}};
    f.refs.push_back(Ref(g.loc, GpuLabel(g) + ": current " + Link(l.cur_gen, l.cur_width) +
                                    ", max " + Link(l.max_gen, l.max_width)));
    f.fix = narrow ? "Reseat the GPU or its riser, check the slot (BIOS lane bifurcation); compare "
                     "`nvidia-smi -q -d PCI` across nodes."
                   : "Check again under load (`nvidia-smi -q -d PCI` while training); if it stays "
                     "low, check BIOS PCIe speed settings and the slot.";
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<Finding> FindTopoAcsEnabled(const Job& job, const Options&) {
  const Topology& t = job.topo;
  std::vector<const PciBridge*> gpu_gpu, other;
  std::vector<std::string> pairs;
  for (const auto& p : t.pairs) {
    if (p.nvlinks > 0) continue;  // P2P goes over NVLink; ACS does not touch it
    bool hit = false;
    for (const auto& bus : p.bridges) {
      const PciBridge* b = t.FindBridge(bus);
      if (!b || !b->P2PRedirected()) continue;
      hit = true;
      if (std::find(gpu_gpu.begin(), gpu_gpu.end(), b) == gpu_gpu.end()) gpu_gpu.push_back(b);
    }
    if (hit) pairs.push_back(PairLabel(p));
  }
  bool rdma = std::any_of(t.nics.begin(), t.nics.end(),
                          [](const Nic& n) { return n.kind != NicKind::kEthernet; });
  for (const auto& b : t.bridges)
    if (rdma && b.P2PRedirected() && std::find(gpu_gpu.begin(), gpu_gpu.end(), &b) == gpu_gpu.end())
      other.push_back(&b);
  if (gpu_gpu.empty() && other.empty()) return {};
  Finding f = NewFinding("topo.acs_enabled");
  f.severity = Severity::kWarning;
  f.title = "PCIe ACS redirects peer traffic on " + std::to_string(gpu_gpu.size() + other.size()) +
            " bridge(s) between GPUs" + (other.empty() ? "" : " and NICs");
  std::string pair_list;
  for (const auto& p : pairs) pair_list += (pair_list.empty() ? "" : ", ") + p;
  f.detail =
      "ACS Request/Completion Redirect sends PCIe peer-to-peer traffic up to the root "
      "complex: P2P between GPUs and GPUDirect RDMA slow down or fail, and NCCL may hang "
      "or fall back to host memory.";
  if (!pair_list.empty()) f.detail += " GPU pairs affected: " + pair_list + ".";
  for (const PciBridge* b : gpu_gpu)
    f.refs.push_back(Ref({}, "bridge " + b->bus_id + ": " + b->AcsText()));
  for (const PciBridge* b : other)
    f.refs.push_back(Ref({}, "bridge " + b->bus_id + " (GPU-NIC path): " + b->AcsText()));
  f.metrics = {{"bridges", static_cast<double>(gpu_gpu.size() + other.size()), Unit::kBridges}};
  f.fix =
      "On bare metal, disable ACS in the BIOS (or `setpci -s <bridge> ECAP_ACS+0x6.w=0000` at "
      "boot, as NCCL's troubleshooting guide shows); in VMs, ACS is needed for passthrough: use "
      "NVLink or accept SHM. Verify with `nvidia-smi topo -p2p r` and NCCL_DEBUG=INFO.";
  return {f};
}

}  // namespace commdx::analysis
