// PCI facts from sysfs: a function's place in the PCIe tree (the chain of bridges from its host
// bridge), NUMA node, local CPUs, link speed and width, and the ACS control of bridges (from the
// config space, readable beyond the first 64 bytes only as root).
//
//   sys/bus/pci/devices/0000:1b:00.0 -> ../../../devices/pci0000:16/0000:16:02.0/0000:17:00.0/
//                                       0000:18:08.0/0000:1b:00.0
//   sys/bus/pci/devices/0000:1b:00.0/{vendor,device,class,numa_node,local_cpulist,
//                                     current_link_speed,max_link_speed,current_link_width,...}
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/topology.h"
#include "probe/sysfs.h"

namespace commdx::probe {

struct PciFunction {
  std::string bus_id;              // "0000:1b:00.0"
  std::vector<std::string> chain;  // "pci0000:16", "0000:16:02.0", ..., bus_id (host bridge first)
  uint32_t vendor = 0;             // 0x10de = NVIDIA
  uint32_t device = 0;
  uint32_t class_code = 0;       // 0x030200 = 3D controller, 0x060400 = PCI bridge
  std::optional<int> numa_node;  // sysfs says -1 when unknown: nullopt
  std::string local_cpulist;
  PcieLinkState link;
  std::string iommu_group_type;  // "identity", "DMA", "DMA-FQ", empty when none/unreadable
};

inline constexpr uint32_t kNvidiaVendor = 0x10de;

// "0000:1b:00.0"
bool IsPciAddress(std::string_view s);
// "32.0 GT/s PCIe" -> 5, "8 GT/s" -> 3; 0 when unknown.
int PcieGenFromSpeed(std::string_view speed);

std::vector<std::string> ListPciFunctions(const SysRoot& root);
std::optional<PciFunction> ReadPciFunction(const SysRoot& root, std::string_view bus_id);

// The nvidia-smi path class between two functions (NUMA decides NODE vs SYS across host bridges).
PathType ClassifyPciPath(const PciFunction& a, const PciFunction& b);
// Bridges a transfer from a to b passes (root ports, switch ports), in path order.
std::vector<std::string> BridgesBetween(const PciFunction& a, const PciFunction& b);

// ACS control of a bridge from its config space.
PciBridge ReadBridge(const SysRoot& root, std::string_view bus_id);
// Walks the PCIe extended capabilities of raw config bytes for ACS (id 0x000d). Exposed for tests.
void ParseAcsFromConfig(std::string_view config, PciBridge& out);

// The PCI function a netdev or RDMA device sits on: the nearest ancestor of its `device` link
// that is a PCI address ("virtio0" under 0000:00:05.0 gives 0000:00:05.0). Empty when virtual.
std::string PciAddressOfDeviceLink(const SysRoot& root, std::string_view device_link_rel);

}  // namespace commdx::probe
