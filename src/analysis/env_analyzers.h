// Analyzers over the node's environment (job.env, with job.topo for GPU facts). Pure functions;
// each returns nothing when no environment snapshot was taken.
#pragma once

#include <vector>

#include "analysis/registry.h"
#include "model/finding.h"
#include "model/job.h"

namespace commdx::analysis {

// env.shm_small, env.memlock.
std::vector<Finding> FindEnvLimits(const Job& job, const Options& options);
// env.mig, env.visible_devices.
std::vector<Finding> FindEnvGpus(const Job& job, const Options& options);
// env.nccl_override (harmful and risky variables), env.omp_oversubscribed.
std::vector<Finding> FindEnvVariables(const Job& job, const Options& options);
// env.nccl_lib, env.cuda_driver_old.
std::vector<Finding> FindEnvLibraries(const Job& job, const Options& options);
// env.peermem_missing, env.iommu, env.container.
std::vector<Finding> FindEnvPlatform(const Job& job, const Options& options);

}  // namespace commdx::analysis
