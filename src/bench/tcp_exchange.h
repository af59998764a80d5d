// Hands rank 0's NCCL unique id to every other process over one TCP connection each:
// rank 0 listens on LaunchEnv::port, the others connect to MASTER_ADDR (retrying until the
// timeout), say who they are, and read the id. A peer that never comes is reported by rank.
#pragma once

#include <string>

#include "base/result.h"
#include "bench/launch.h"

namespace commdx::bench {

// Rank 0 passes its blob and gets it back; the others pass anything and get rank 0's.
Result<std::string> ExchangeBlob(const LaunchEnv& env, const std::string& blob, double timeout_s);

}  // namespace commdx::bench
