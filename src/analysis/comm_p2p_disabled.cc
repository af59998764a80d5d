// comm.p2p_disabled / comm.shm_transport: GPUs of one node exchange data through host shared
// memory (SHM) or the network instead of P2P (NVLink or PCIe peer access). When the log shows
// why (NCCL_P2P_DISABLE, NCCL_P2P_LEVEL, "P2P is disabled between connected GPUs", "Could not
// enable P2P") it is comm.p2p_disabled (error); SHM with no stated cause is comm.shm_transport
// (warning: topology across CPU sockets, ACS/IOMMU, a container without a shared IPC namespace,
// or GPUs without P2P support).
#include <set>

#include "analysis/catalogue.h"
#include "analysis/comm_analyzers.h"
#include "analysis/comm_common.h"

namespace commdx::analysis {

namespace {

struct Cause {
  std::string text;
  std::vector<const NcclLineRef*> refs;
  bool known = false;
};

Cause FindCause(const NcclSetup& s) {
  Cause c;
  for (const auto& o : s.overrides) {
    if (o.name == "NCCL_P2P_DISABLE" && o.value != "0") {
      c.text = "NCCL_P2P_DISABLE=" + o.value + " turns P2P off";
      c.refs.push_back(&o.ref);
      c.known = true;
    } else if (o.name == "NCCL_P2P_LEVEL") {
      c.text = "NCCL_P2P_LEVEL=" + o.value + " forbids P2P on longer paths";
      c.refs.push_back(&o.ref);
      c.known = true;
    }
  }
  if (c.known) return c;
  for (const auto& n : s.notes) {
    if (n.kind == "p2p_disabled_connected" || n.kind == "p2p_enable_failed") {
      c.text = n.kind == "p2p_enable_failed"
                   ? "CUDA peer access could not be enabled (cudaDeviceEnablePeerAccess failed)"
                   : "the driver reports P2P disabled between GPUs that are connected "
                     "(consumer GPUs without P2P, or P2P turned off in the driver)";
      c.refs.push_back(&n.ref);
      c.known = true;
    }
  }
  return c;
}

}  // namespace

std::vector<Finding> FindCommP2pDisabled(const Job& job, const Options&) {
  const NcclSetup& s = job.nccl;
  std::vector<const NcclLineRef*> shm_refs;
  std::set<std::pair<int, int>> shm_pairs;
  bool any_p2p = false;
  for (const auto& c : s.communicators) {
    for (const auto& x : c.connections) {
      if (x.kind == TransportKind::kP2P) any_p2p = true;
      bool intra_net = (x.kind == TransportKind::kNetSocket || x.kind == TransportKind::kNetIB) &&
                       SameNode(c, x.from_rank, x.to_rank);
      if (x.kind == TransportKind::kShm || intra_net) {
        shm_refs.push_back(&x.ref);
        shm_pairs.insert({std::min(x.from_rank, x.to_rank), std::max(x.from_rank, x.to_rank)});
      }
    }
  }
  Cause cause = FindCause(s);
  if (shm_refs.empty() && !cause.known) return {};
  Finding f =
      NewFinding(cause.known ? FindingId("comm.p2p_disabled") : FindingId("comm.shm_transport"));
  if (cause.known) {
    f.severity = shm_refs.empty() ? Severity::kWarning : Severity::kError;
    f.confidence = shm_refs.empty() ? 0.6 : 1.0;
    f.title = "P2P between GPUs of one node is disabled: " + cause.text;
    f.detail = shm_refs.empty()
                   ? "No connection lines show the effect, but with this setting GPUs of one node "
                     "exchange data through host memory (SHM) instead of NVLink/PCIe peer access."
                   : "Intra-node connections go through host shared memory (or the network) "
                     "instead of NVLink/PCIe peer access; bandwidth drops to what host memory "
                     "copies give (on 2xH200: 27.8 GB/s instead of 346 GB/s all_reduce busbw).";
    f.fix =
        "Remove NCCL_P2P_DISABLE / NCCL_P2P_LEVEL from the environment (also /etc/nccl.conf "
        "and ~/.nccl.conf). If P2P was disabled to work around a hang, fix the hang's cause "
        "instead (PCIe ACS / IOMMU on the path between GPUs).";
    AddEvidence(f, cause.refs, 3);
  } else {
    f.severity = Severity::kWarning;
    f.confidence = any_p2p ? 0.7 : 0.8;  // some pairs on P2P: maybe only some paths lack it
    f.title = "GPUs of one node exchange data through host shared memory (SHM), not P2P";
    f.detail =
        "No setting in the log disables P2P, so NCCL decided P2P is unusable here: the "
        "GPUs sit under different CPU sockets or PCIe root complexes, ACS/IOMMU blocks "
        "peer traffic, the ranks run in containers that do not share an IPC namespace, "
        "or the GPUs do not support P2P.";
    f.fix =
        "Check `nvidia-smi topo -m` (SYS/NODE between the GPUs means no P2P path), "
        "`nvidia-smi topo -p2p r`, ACS on PCIe bridges (`lspci -vvv | grep ACSCtl`), and run "
        "containers with --ipc=host (or one container per node).";
  }
  AddEvidence(f, shm_refs);
  f.metrics.push_back(
      {"intra_node_pairs_without_p2p", static_cast<double>(shm_pairs.size()), Unit::kPairs});
  return {f};
}

}  // namespace commdx::analysis
