#include "bench/cases.h"

#include "bench/coll_runner.h"
#include "bench/p2p_runner.h"
#include "bench/repro_runner.h"

namespace commdx::bench {

namespace {
template <CollectiveType K>
Result<BenchResult> RunColl(Backend& b, Watchdog* wd, const RunOptions& o) {
  return RunCollective(b, wd, K, o);
}
}  // namespace

const std::vector<Case>& Cases() {
  static const std::vector<Case> kCases = {
      {"all_reduce", "ncclAllReduce over a size sweep (DDP gradients)", true,
       &RunColl<CollectiveType::kAllReduce>},
      {"all_gather", "ncclAllGather over a size sweep (FSDP/ZeRO parameters)", true,
       &RunColl<CollectiveType::kAllGather>},
      {"reduce_scatter", "ncclReduceScatter over a size sweep (FSDP/ZeRO gradients)", true,
       &RunColl<CollectiveType::kReduceScatter>},
      {"broadcast", "ncclBroadcast from --root over a size sweep", true,
       &RunColl<CollectiveType::kBroadcast>},
      {"reduce", "ncclReduce to --root over a size sweep", true, &RunColl<CollectiveType::kReduce>},
      {"alltoall", "all-to-all as grouped ncclSend/ncclRecv over a size sweep (MoE)", true,
       &RunColl<CollectiveType::kAllToAll>},
      {"sendrecv", "ncclSend/ncclRecv around a ring over a size sweep (pipeline parallel)", true,
       &RunColl<CollectiveType::kSendRecv>},
      {"p2p",
       "per GPU pair copy bandwidth and latency: copy engine and SM kernel, one- and "
       "two-directional",
       false, &RunP2p},
      {"repro",
       "minimal repro: compute of set duration + bucketed all_reduce, overlap on/off, "
       "bucket sweep",
       true, &RunRepro},
  };
  return kCases;
}

const Case* FindCase(std::string_view key) {
  for (const auto& c : Cases())
    if (key == c.key) return &c;
  return nullptr;
}

}  // namespace commdx::bench
