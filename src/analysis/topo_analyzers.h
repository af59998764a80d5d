// Analyzers over the machine's topology (job.topo): links, PCIe, placement of GPU processes,
// link health. Pure functions; each returns nothing when the facts it needs are absent.
#pragma once

#include <vector>

#include "analysis/registry.h"
#include "model/finding.h"
#include "model/job.h"

namespace commdx::analysis {

// topo.pcie_only: GPU pairs without NVLink (all of them, or some in a mixed box).
std::vector<Finding> FindTopoPcieOnly(const Job& job, const Options& options);
// topo.numa_split: GPUs on two or more NUMA nodes with pairs across them not on NVLink.
std::vector<Finding> FindTopoNumaSplit(const Job& job, const Options& options);
// topo.nvlink_degraded: links listed inactive, or a GPU/pair with fewer links than its peers.
std::vector<Finding> FindTopoNvlinkDegraded(const Job& job, const Options& options);
// topo.pcie_downtrained: a GPU's PCIe link narrower or slower than its maximum.
std::vector<Finding> FindTopoPcieDowntrained(const Job& job, const Options& options);
// topo.acs_enabled: ACS request/completion redirect on a bridge between GPUs or GPU and NIC.
std::vector<Finding> FindTopoAcsEnabled(const Job& job, const Options& options);
// topo.nic_far: GPUs whose nearest RDMA NIC is too far for GPUDirect RDMA (NCCL: beyond PXB).
std::vector<Finding> FindTopoNicFar(const Job& job, const Options& options);
// topo.cross_numa_rank, topo.gpu_shared, topo.cpu_overlap: where GPU processes run.
std::vector<Finding> FindTopoPlacement(const Job& job, const Options& options);
// health.nvlink_errors, health.throttled.
std::vector<Finding> FindTopoHealth(const Job& job, const Options& options);

}  // namespace commdx::analysis
