// topo.acs_enabled from pasted `lspci -vvv` output next to an NCCL log: "ACSCtl: SrcValid+" on
// PCIe bridges redirects GPU peer-to-peer traffic through the root complex (slow, or a hang with
// IOMMU). Users paste this output into the same thread as the log.
#include "analysis/catalogue.h"
#include "analysis/comm_analyzers.h"
#include "analysis/comm_common.h"

namespace commdx::analysis {

std::vector<Finding> FindCommAcs(const Job& job, const Options&) {
  std::vector<const NcclLineRef*> refs;
  uint64_t bridges = 0;
  for (const auto& n : job.nccl.notes)
    if (n.kind == "acs_srcvalid") refs.push_back(&n.ref), bridges += n.count;
  if (refs.empty()) return {};
  bool p2p = false;
  for (const auto& c : job.nccl.communicators)
    for (const auto& x : c.connections) p2p = p2p || x.kind == TransportKind::kP2P;
  Finding f = NewFinding("topo.acs_enabled");
  f.severity = p2p ? Severity::kError : Severity::kWarning;
  f.method_step = 4;
  f.detail = std::to_string(bridges) + " PCIe bridge" + (bridges == 1 ? "" : "s") +
             " in the pasted lspci output have ACS source validation on (ACSCtl: SrcValid+). "
             "ACS sends peer-to-peer PCIe traffic up to the root complex: P2P between GPUs and "
             "GPUDirect RDMA become slow or hang" +
             std::string(p2p ? ", and this job's GPUs talk over P2P." : ".");
  f.fix =
      "Disable ACS on the PCIe switches (BIOS option, or `setpci` on each bridge at boot) "
      "and put the IOMMU in passthrough (iommu=pt); NCCL_P2P_DISABLE=1 avoids the hang at "
      "a large bandwidth cost.";
  AddEvidence(f, refs, 4);
  f.metrics.push_back({"bridges_with_acs", static_cast<double>(bridges), Unit::kCount});
  return {f};
}

}  // namespace commdx::analysis
