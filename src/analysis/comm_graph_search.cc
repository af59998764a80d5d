// comm.topology_error (warning) from the topology search: "Could not find a path for pattern N,
// falling back to simple order" (INFO in recent NCCL, WARN in some versions, where
// comm_warnings explains it). NCCL then runs on rings/trees slower than the hardware allows.
#include "analysis/catalogue.h"
#include "analysis/comm_analyzers.h"
#include "analysis/comm_common.h"

namespace commdx::analysis {

std::vector<Finding> FindCommGraphSearch(const Job& job, const Options&) {
  std::vector<const NcclLineRef*> refs;
  for (const auto& n : job.nccl.notes)
    if (n.kind == "graph_fallback") refs.push_back(&n.ref);
  if (refs.empty()) return {};
  Finding f = NewFinding("comm.topology_error");
  f.severity = Severity::kWarning;
  f.method_step = 4;
  f.title = "NCCL's topology search fell back to a simple ring order";
  f.detail =
      "NCCL could not build the rings/trees it searched for on this topology and used a "
      "fallback: fewer channels or a slower path than the hardware allows. Often a "
      "mis-detected topology (VMs, missing sysfs entries) or an asymmetric system.";
  f.fix =
      "Compare `nvidia-smi topo -m` with NCCL's view (NCCL_DEBUG_SUBSYS=GRAPH, "
      "NCCL_TOPO_DUMP_FILE); upgrade NCCL; in VMs provide NCCL_TOPO_FILE.";
  AddEvidence(f, refs, 3);
  return {f};
}

}  // namespace commdx::analysis
