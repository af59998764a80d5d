// comm.efa_not_used: the AWS OFI plugin selected a TCP libfabric provider ("NET/OFI Selected
// Provider is tcp;ofi_rxm") or none ("Could not find any optimal provider"), so EFA is not used.
#include "analysis/catalogue.h"
#include "analysis/comm_analyzers.h"
#include "analysis/comm_common.h"

namespace commdx::analysis {

std::vector<Finding> FindCommOfiProvider(const Job& job, const Options&) {
  std::vector<const NcclLineRef*> refs;
  std::string provider;
  for (const auto& n : job.nccl.nets) {
    const std::string& p = n.ofi_provider;
    if (p.empty()) continue;
    bool tcp = p.rfind("tcp", 0) == 0 || p.rfind("sockets", 0) == 0 || p.rfind("udp", 0) == 0;
    if (!tcp) continue;
    if (provider.empty()) provider = p;
    refs.push_back(&n.ofi_ref);
  }
  for (const auto& n : job.nccl.notes)
    if (n.kind == "ofi_no_provider") refs.push_back(&n.ref);
  if (refs.empty()) return {};
  Finding f = NewFinding("comm.efa_not_used");
  f.severity = Severity::kError;
  f.method_step = 4;
  f.title = provider.empty()
                ? "The AWS OFI plugin found no usable libfabric provider"
                : "The AWS OFI plugin uses libfabric provider '" + provider + "' (TCP), not EFA";
  f.detail =
      "NCCL's inter-node traffic goes through libfabric's TCP emulation instead of the "
      "EFA adapter: low bandwidth and, with some versions, hangs.";
  f.fix =
      "Check the instance has EFA enabled and the EFA installer's libfabric is the one "
      "loaded (LD_LIBRARY_PATH=/opt/amazon/efa/lib), set FI_PROVIDER=efa, and verify with "
      "`fi_info -p efa`.";
  AddEvidence(f, refs, 4);
  return {f};
}

}  // namespace commdx::analysis
