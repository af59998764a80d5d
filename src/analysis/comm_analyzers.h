// The analyzers of NCCL debug-log facts (source "logs"), one per file comm_*.cc. Each is a pure
// function of the Job; docs/findings/logs.md says what each finding means and how it is found.
#pragma once

#include <vector>

#include "analysis/registry.h"

namespace commdx::analysis {

std::vector<Finding> FindCommSocketFallback(const Job& job, const Options& options);
std::vector<Finding> FindCommP2pDisabled(const Job& job, const Options& options);
std::vector<Finding> FindCommGdrDisabled(const Job& job, const Options& options);
std::vector<Finding> FindCommFewChannels(const Job& job, const Options& options);
std::vector<Finding> FindCommEnvOverrides(const Job& job, const Options& options);
std::vector<Finding> FindCommVersionMismatch(const Job& job, const Options& options);
std::vector<Finding> FindCommDuplicateGpu(const Job& job, const Options& options);
std::vector<Finding> FindCommWrongInterface(const Job& job, const Options& options);
std::vector<Finding> FindCommWarnings(const Job& job, const Options& options);
std::vector<Finding> FindCommNvls(const Job& job, const Options& options);
std::vector<Finding> FindCommNetPluginMismatch(const Job& job, const Options& options);
std::vector<Finding> FindCommHostMismatch(const Job& job, const Options& options);
std::vector<Finding> FindCommOfiProvider(const Job& job, const Options& options);
std::vector<Finding> FindCommMultiNic(const Job& job, const Options& options);
std::vector<Finding> FindCommMixedLinkLayers(const Job& job, const Options& options);
std::vector<Finding> FindCommAcs(const Job& job, const Options& options);
std::vector<Finding> FindCommUnsupportedGpu(const Job& job, const Options& options);
std::vector<Finding> FindCommGraphSearch(const Job& job, const Options& options);
std::vector<Finding> FindCommInitIncomplete(const Job& job, const Options& options);

}  // namespace commdx::analysis
