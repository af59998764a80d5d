// comm.multi_nic_underused: NCCL lists several network devices (NET/Socket or NET/IB list) but
// every inter-node connection uses the same one ("via NET/Socket/0"), so bandwidth is capped at
// one NIC.
#include <map>
#include <set>

#include "analysis/catalogue.h"
#include "analysis/comm_analyzers.h"
#include "analysis/comm_common.h"

namespace commdx::analysis {

std::vector<Finding> FindCommMultiNic(const Job& job, const Options&) {
  const NcclSetup& s = job.nccl;
  std::set<int> used;
  std::vector<const NcclLineRef*> conn_refs;
  std::string role;
  for (const auto& c : s.communicators)
    for (const auto& x : c.connections)
      if (x.net_dev >= 0) {
        used.insert(x.net_dev);
        conn_refs.push_back(&x.ref);
        role = x.kind == TransportKind::kNetSocket ? "socket" : "ib";
      }
  if (used.size() != 1 || conn_refs.size() < 2) return {};
  // One rank per node legitimately uses its nearest NIC; it takes two ranks of one host on the
  // same NIC to show that the others stay idle.
  std::map<std::string, std::set<int>> printers;
  for (const auto& c : s.communicators)
    for (const auto& x : c.connections)
      if (x.net_dev >= 0) printers[x.host].insert(x.direction == 2 ? x.to_rank : x.from_rank);
  bool shared = false;
  for (const auto& [host, ranks] : printers) shared = shared || ranks.size() >= 2;
  if (!shared) return {};
  size_t max_listed = 0;
  const NcclNetInfo* example = nullptr;
  for (const auto& n : s.nets) {
    std::set<std::string> names;
    for (const auto& nic : n.nics)
      if (nic.role == role) names.insert(nic.name);
    if (names.size() > max_listed) max_listed = names.size(), example = &n;
  }
  if (max_listed < 2) return {};
  Finding f = NewFinding("comm.multi_nic_underused");
  f.severity = Severity::kWarning;
  f.method_step = 10;
  f.title = std::to_string(max_listed) + " network devices are listed but only device " +
            std::to_string(*used.begin()) + " carries traffic";
  f.detail =
      "Every inter-node connection in the log uses the same NIC index, so the job gets "
      "one NIC's bandwidth. NCCL's graph search decides per channel which NIC to use; "
      "older versions and asymmetric NICs (different speeds or PCIe placement) often end "
      "up on one.";
  f.fix =
      "Upgrade NCCL; check the NICs report the same speed and sit near the GPUs "
      "(NCCL_DEBUG_SUBSYS=GRAPH); for sockets NCCL_SOCKET_NTHREADS / NCCL_NSOCKS_PERTHREAD, "
      "for IB NCCL_IB_HCA listing all HCAs.";
  if (example)
    for (const auto& r : example->nic_refs) f.refs.push_back(Evidence(r));
  AddEvidence(f, conn_refs, 3);
  f.metrics.push_back({"nics_listed", static_cast<double>(max_listed), Unit::kCount});
  f.metrics.push_back({"nics_used", 1, Unit::kCount});
  return {f};
}

}  // namespace commdx::analysis
