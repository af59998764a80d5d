#include "model/bench_result.h"

#include <algorithm>

namespace commdx {

const char* BenchLinkName(BenchLink l) {
  switch (l) {
    case BenchLink::kUnknown:
      return "";
    case BenchLink::kNvLink:
      return "nvlink";
    case BenchLink::kPcie:
      return "pcie";
    case BenchLink::kHost:
      return "host";
  }
  return "";
}

const char* BenchSourceName(BenchSource s) {
  return s == BenchSource::kNcclTests ? "nccl-tests" : "commdx";
}

int HostCount(const std::vector<BenchRankGpu>& gpus) {
  std::vector<std::string_view> hosts;
  for (const BenchRankGpu& g : gpus)
    if (!g.host.empty()) hosts.push_back(g.host);
  std::sort(hosts.begin(), hosts.end());
  return static_cast<int>(std::unique(hosts.begin(), hosts.end()) - hosts.begin());
}

bool AnyGpuShared(const std::vector<BenchRankGpu>& gpus) {
  std::vector<std::string_view> uuids;
  for (const BenchRankGpu& g : gpus)
    if (!g.uuid.empty()) uuids.push_back(g.uuid);
  std::sort(uuids.begin(), uuids.end());
  return std::adjacent_find(uuids.begin(), uuids.end()) != uuids.end();
}

}  // namespace commdx
