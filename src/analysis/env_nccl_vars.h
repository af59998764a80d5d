// What each NCCL / PyTorch-NCCL / CUDA variable in the environment does to communication:
// harmful (slows or breaks it on this machine), risky (overrides a choice NCCL usually gets
// right, or adds overhead), neutral (debugging, tuning that does not hurt, defaults).
#pragma once

#include <string>
#include <string_view>

#include "model/job.h"

namespace commdx::analysis {

enum class VarRisk { kNeutral, kRisky, kHarmful };
const char* VarRiskName(VarRisk r);  // "neutral", "risky", "harmful"

struct VarVerdict {
  VarRisk risk = VarRisk::kNeutral;
  std::string what;   // what the variable does, with this value
  bool known = true;  // false: not in commdx's table (check the spelling)
};

// `job` gives context: InfiniBand present, NVLink present, GPU count.
VarVerdict ClassifyVariable(std::string_view name, std::string_view value, const Job& job);

// The same for a variable of the job's environment: one that PyTorch printed itself (a
// ProcessGroupNCCL line, EnvVar::source set) is spelt right even when commdx does not know it.
VarVerdict ClassifyVariable(const EnvVar& var, const Job& job);

// Whether the variable is one the env report lists (NCCL_*, TORCH_NCCL_*, CUDA_* that matter).
bool IsCommVariable(std::string_view name);

}  // namespace commdx::analysis
