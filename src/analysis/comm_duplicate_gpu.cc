// comm.duplicate_gpu: two ranks of one communicator on the same physical GPU (same node and
// busId in the init lines). NCCL refuses ("Duplicate GPU detected", ncclInvalidUsage); the WARN
// itself is explained by comm_warnings. Ranks given different NCCL_HOSTIDs are different nodes
// to NCCL, which then does not refuse them, and to this check.
#include <map>

#include "analysis/catalogue.h"
#include "analysis/comm_analyzers.h"
#include "analysis/comm_common.h"

namespace commdx::analysis {

std::vector<Finding> FindCommDuplicateGpu(const Job& job, const Options&) {
  std::vector<Finding> out;
  for (const auto& c : job.nccl.communicators) {
    std::map<std::pair<std::string, std::string>, std::vector<const NcclRankInfo*>> by_gpu;
    for (const auto& [rank, r] : c.ranks)
      if (!r.bus_id.empty()) by_gpu[{NodeOfRank(c, rank), r.bus_id}].push_back(&r);
    for (const auto& [key, ranks] : by_gpu) {
      if (ranks.size() < 2) continue;
      Finding f = NewFinding("comm.duplicate_gpu");
      f.severity = Severity::kError;
      f.method_step = 9;
      std::string names;
      for (const auto* r : ranks) names += (names.empty() ? "" : ", ") + std::to_string(r->rank);
      f.detail = "Ranks " + names + " of communicator " + c.comm_id + " all use the GPU at bus " +
                 key.second + (key.first.empty() ? "" : " on " + key.first) +
                 ": the processes did not select distinct GPUs.";
      f.fix =
          "Set the device from the local rank before creating the communicator "
          "(torch.cuda.set_device(local_rank) / LOCAL_RANK, or one GPU per process via "
          "CUDA_VISIBLE_DEVICES).";
      for (const auto* r : ranks) f.refs.push_back(Evidence(r->ref));
      f.metrics.push_back({"ranks_on_one_gpu", static_cast<double>(ranks.size()), Unit::kCount});
      out.push_back(std::move(f));
    }
  }
  return out;
}

}  // namespace commdx::analysis
