#include "analysis/replay_settings.h"

#include <algorithm>
#include <array>
#include <set>
#include <string>

namespace commdx::analysis {

namespace {

// How NCCL moves data: algorithms, protocols, channels, buffers, transports turned off or
// limited. Not: NCCL_DEBUG*, NCCL_SOCKET_IFNAME, NCCL_IB_HCA, NCCL_HOSTID, NCCL_NVLS_ENABLE
// (a property of the machine's switches), plugins.
constexpr std::array<std::string_view, 22> kReplayed = {
    "NCCL_ALGO",
    "NCCL_PROTO",
    "NCCL_MAX_NCHANNELS",
    "NCCL_MIN_NCHANNELS",
    "NCCL_MAX_CTAS",
    "NCCL_MIN_CTAS",
    "NCCL_NTHREADS",
    "NCCL_BUFFSIZE",
    "NCCL_P2P_DISABLE",
    "NCCL_SHM_DISABLE",
    "NCCL_P2P_LEVEL",
    "NCCL_NET_GDR_LEVEL",
    "NCCL_NET_GDR_READ",
    "NCCL_IB_DISABLE",
    "NCCL_CROSS_NIC",
    "NCCL_CUMEM_ENABLE",
    "NCCL_P2P_USE_CUDA_MEMCPY",
    "NCCL_P2P_NET_CHUNKSIZE",
    "NCCL_P2P_PCI_CHUNKSIZE",
    "NCCL_P2P_NVL_CHUNKSIZE",
    "NCCL_NCHANNELS_PER_NET_PEER",
    "NCCL_SHM_USE_CUDA_MEMCPY",
};

}  // namespace

bool IsReplayedSetting(std::string_view name) {
  return std::find(kReplayed.begin(), kReplayed.end(), name) != kReplayed.end();
}

std::vector<ReplaySetting> JobNcclSettings(const Job& job) {
  std::vector<ReplaySetting> out;
  std::set<std::string> seen;
  for (const NcclEnvOverride& o : job.nccl.overrides)
    if (IsReplayedSetting(o.name) && seen.insert(o.name).second)
      out.push_back({o.name, o.value, o.ref.loc.ToString()});
  for (const EnvVar& v : job.env.vars)
    if (IsReplayedSetting(v.name) && seen.insert(v.name).second)
      out.push_back({v.name, v.value, "environment snapshot"});
  return out;
}

}  // namespace commdx::analysis
