// Helpers shared by the topo_* and env_* analyzers: how a GPU, pair or process is named in
// evidence, and the CPU sets of NUMA nodes.
#pragma once

#include <string>
#include <vector>

#include "model/finding.h"
#include "model/topology.h"

namespace commdx::analysis {

// "GPU1 (0000:04:00.0)" or "GPU1".
std::string GpuLabel(const Gpu& g);
std::string GpuLabel(const Topology& t, int index);
// "GPU0-GPU1".
std::string PairLabel(const GpuPair& p);
// "pid 4242 (python3, rank 3)".
std::string ProcessLabel(const GpuProcess& p);

// Evidence with a location where the fact came from a file (nvidia-smi text), text alone live.
EvidenceRef Ref(const SourceLoc& where, std::string text);

// CPUs of a NUMA node; empty when unknown.
std::vector<int> NumaCpus(const Topology& t, int node);

// Whether the topology tells NVLink facts (NVML or nvidia-smi), not just the PCI tree (sysfs).
bool KnowsNvLinks(const Topology& t);

// Where the facts come from, for finding details: "live (NVML, sysfs)", "nvidia-smi text".
std::string FactsSource(const Topology& t);

}  // namespace commdx::analysis
