// Tables `commdx topo` and `commdx env` show: the machine, GPUs, the connection matrix in
// `nvidia-smi topo -m` form, each GPU pair with the path NCCL would take and the bandwidth to
// expect, NICs, NUMA nodes, GPU processes, PCI bridges with ACS; the environment facts, NCCL
// libraries and variables with their verdicts.
#pragma once

#include "analysis/table_data.h"
#include "model/job.h"
#include "report/report.h"

namespace commdx::report {

// `data`: the expected bandwidth of the machine and of each pair (analysis/table_data.h).
void AddTopologyTables(const Job& job, const analysis::TopologyTableData& data, Report& report);
// `variables`: those that steer communication, with their verdicts (analysis/table_data.h).
void AddEnvironmentTables(const Job& job, const std::vector<analysis::VariableRow>& variables,
                          Report& report);

// The matrix cell for a pair: "X", "NV18", "PIX", ...
std::string MatrixCell(const Topology& topo, int a, int b);

}  // namespace commdx::report
