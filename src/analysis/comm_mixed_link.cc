// comm.mixed_link_layers: one NET/IB device list mixes InfiniBand and RoCE ports
// ("NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE"). Rings that pair an IB port with a RoCE
// port cannot connect (ibv_modify_qp fails) or take the wrong fabric.
#include <set>

#include "analysis/catalogue.h"
#include "analysis/comm_analyzers.h"
#include "analysis/comm_common.h"

namespace commdx::analysis {

std::vector<Finding> FindCommMixedLinkLayers(const Job& job, const Options&) {
  for (const auto& n : job.nccl.nets) {
    std::set<std::string> layers;
    for (const auto& nic : n.nics)
      if (nic.role == "ib" && !nic.link_layer.empty()) layers.insert(nic.link_layer);
    if (layers.size() < 2) continue;
    Finding f = NewFinding("comm.mixed_link_layers");
    f.severity = Severity::kWarning;
    f.method_step = 4;
    f.title = "NCCL mixes InfiniBand and RoCE ports in one device list";
    f.detail =
        "NCCL will build rings across ports of different link layers; such connections "
        "fail to come up (ibv_modify_qp errors) or use the wrong fabric.";
    f.fix =
        "Restrict NCCL to one kind of port with NCCL_IB_HCA (e.g. NCCL_IB_HCA=mlx5_0,mlx5_1 "
        "or =^mlx5_2 to exclude the Ethernet/RoCE one).";
    for (const auto& r : n.nic_refs) f.refs.push_back(Evidence(r));
    return {f};
  }
  return {};
}

}  // namespace commdx::analysis
