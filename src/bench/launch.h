// How commdx was launched: one process driving every local GPU (default), or one process per
// GPU under torchrun-style variables (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT).
// mpirun/srun are recognised through their own variables (OMPI_COMM_WORLD_*, PMI_*, SLURM_*)
// for the rank numbers; the NCCL id still travels over TCP from rank 0, so MASTER_ADDR must be
// set (commdx links no MPI library).
#pragma once

#include <functional>
#include <string>

#include "base/result.h"

namespace commdx::bench {

struct LaunchEnv {
  std::string mode = "single_process";  // | "torchrun" | "mpi" | "slurm"
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  std::string master_addr;
  int port = 0;  // where rank 0 listens for the NCCL id: $COMMDX_PORT, else MASTER_PORT + 1
                 // (torchrun's own store already owns MASTER_PORT)
  bool multi_process() const { return mode != "single_process"; }
};

// getenv is injected so tests can pass a map.
Result<LaunchEnv> DetectLaunch(const std::function<const char*(const char*)>& getenv_fn);

}  // namespace commdx::bench
