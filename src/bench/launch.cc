#include "bench/launch.h"

#include "base/text.h"

namespace commdx::bench {

namespace {

struct Vars {
  const char* mode;
  const char* rank;
  const char* size;
  const char* local;
};
// Checked in this order; the first whose rank and size variables are both set wins.
constexpr Vars kSchemes[] = {
    {"torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK"},
    {"mpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"},
    {"mpi", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"},
    {"slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},
};

Result<int> ReadInt(const std::function<const char*(const char*)>& env, const char* name) {
  const char* v = env(name);
  auto n = v ? ParseInt(Trim(v)) : std::nullopt;
  if (!n || *n < 0 || *n > 1 << 20)
    return MakeError(ErrorCode::kUsage, std::string("environment variable ") + name + "='" +
                                            (v ? v : "") + "' is not a rank number");
  return static_cast<int>(*n);
}

}  // namespace

Result<LaunchEnv> DetectLaunch(const std::function<const char*(const char*)>& env) {
  LaunchEnv e;
  for (const auto& s : kSchemes) {
    if (!env(s.rank) || !env(s.size)) continue;
    COMMDX_ASSIGN_OR_RETURN(e.rank, ReadInt(env, s.rank));
    COMMDX_ASSIGN_OR_RETURN(e.world_size, ReadInt(env, s.size));
    if (env(s.local)) {
      COMMDX_ASSIGN_OR_RETURN(e.local_rank, ReadInt(env, s.local));
    } else {
      e.local_rank = e.rank;
    }
    e.mode = s.mode;
    break;
  }
  if (!e.multi_process() || e.world_size <= 1) return LaunchEnv{};
  if (e.rank >= e.world_size)
    return MakeError(ErrorCode::kUsage, "rank " + std::to_string(e.rank) +
                                            " is not below the world size " +
                                            std::to_string(e.world_size));
  const char* addr = env("MASTER_ADDR");
  e.master_addr = addr && *addr ? addr : "";
  if (e.master_addr.empty())
    return MakeError(ErrorCode::kUsage,
                     "one process per GPU (" + e.mode +
                         " variables are set) needs MASTER_ADDR (and MASTER_PORT) so rank 0 can "
                         "hand the NCCL id to the others");
  if (const char* p = env("COMMDX_PORT")) {
    COMMDX_ASSIGN_OR_RETURN(e.port, ReadInt(env, "COMMDX_PORT"));
    (void)p;
  } else if (env("MASTER_PORT")) {
    COMMDX_ASSIGN_OR_RETURN(int mp, ReadInt(env, "MASTER_PORT"));
    e.port = mp + 1;
  } else {
    e.port = 29501;
  }
  if (e.port <= 0 || e.port > 65535)
    return MakeError(ErrorCode::kUsage, "port " + std::to_string(e.port) + " is out of range");
  return e;
}

}  // namespace commdx::bench
