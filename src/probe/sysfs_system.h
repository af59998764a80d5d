// CPU, NUMA and NIC facts from sysfs and procfs under a root.
//
//   sys/devices/system/node/node0/cpulist          "0-31,64-95"
//   sys/devices/system/node/node0/meminfo          "Node 0 MemTotal:  263782260 kB"
//   sys/devices/system/cpu/online                  "0-127"
//   proc/cpuinfo                                   "vendor_id\t: GenuineIntel"
//   sys/class/infiniband/mlx5_0/ports/1/{state,rate,link_layer}
//                                                  "4: ACTIVE", "400 Gb/sec (4X NDR)", "InfiniBand"
//   sys/class/net/eth0/{device,speed,operstate}    -> PCI function, "25000" (Mb/s), "up"
#pragma once

#include <string>
#include <vector>

#include "model/topology.h"
#include "probe/sysfs.h"

namespace commdx::probe {

std::vector<NumaNode> ReadNumaNodes(const SysRoot& root);
int ReadOnlineCpus(const SysRoot& root);  // 0 when unknown
void ReadCpuInfo(const SysRoot& root, std::string& vendor, std::string& model);

// RDMA devices (with their netdevs folded in), then physical netdevs that belong to none.
// Virtual interfaces (no PCI device: lo, docker0, veth, ifb) are left out.
std::vector<Nic> ReadNics(const SysRoot& root);

// "400 Gb/sec (4X NDR)" -> 400.
double ParseIbRateGbit(std::string_view rate);

}  // namespace commdx::probe
