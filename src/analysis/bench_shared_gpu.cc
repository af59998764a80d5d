#include <map>
#include <set>

#include "analysis/bench_analyzers.h"
#include "analysis/catalogue.h"
#include "base/text.h"

namespace commdx::analysis {

std::vector<Finding> FindBenchSharedGpu(const Job& job, const Options&) {
  std::vector<Finding> out;
  std::set<std::string> said;  // one finding per GPU, however many cases ran
  for (const auto& r : job.bench) {
    std::map<std::string, std::vector<const BenchRankGpu*>> by_uuid;
    for (const auto& g : r.rank_gpus)
      if (!g.uuid.empty()) by_uuid[g.uuid].push_back(&g);
    for (const auto& [uuid, gpus] : by_uuid) {
      if (gpus.size() < 2 || !said.insert(uuid).second) continue;
      std::vector<int> ranks;
      std::set<std::string> hosts;
      for (const BenchRankGpu* g : gpus) ranks.push_back(g->rank), hosts.insert(g->host);
      Finding f = NewFinding("bench.shared_gpu");
      f.severity = Severity::kError;
      f.title = "Ranks " + JoinInts(ranks, ", ", " and ") + " run on one GPU (" + uuid + ")";
      f.detail =
          "These ranks reported the same GPU UUID (bus " + gpus[0]->bus_id + "), so they take " +
          "turns on one GPU: the times measured are the GPU's time slices between processes, " +
          "not the speed of a link between GPUs, and every bandwidth and latency in this run is " +
          "meaningless for the job's real placement.";
      if (hosts.size() > 1) {
        std::string names;
        for (const auto& h : hosts) names += (names.empty() ? "" : ", ") + h;
        f.detail += " Their processes report different host names (" + names +
                    "): containers or pods on one machine sharing a GPU, so NCCL treats them "
                    "as separate nodes and joins them through the network.";
      }
      f.metrics = {{"ranks_on_gpu", static_cast<double>(gpus.size()), Unit::kCount}};
      f.refs.push_back({SourceLoc{r.file}, BenchLabel(r) + ": GPU of each rank, gathered after "
                                           "the communicator was created"});
      f.fix =
          "Give each rank its own GPU: check the LOCAL_RANK -> device mapping and "
          "CUDA_VISIBLE_DEVICES of each process, and turn off GPU sharing (time-slicing or MPS "
          "in the device plugin, several pods bound to one GPU) for distributed jobs.";
      f.confidence = 0.95;
      out.push_back(std::move(f));
    }
  }
  return out;
}

}  // namespace commdx::analysis
