// env.nccl_override and env.omp_oversubscribed: variables that change how the job communicates
// or how many threads compete for the cores.
#include <algorithm>

#include "analysis/catalogue.h"
#include "analysis/env_analyzers.h"
#include "analysis/env_nccl_vars.h"
#include "analysis/topo_common.h"
#include "base/text.h"

namespace commdx::analysis {

namespace {

// Ranks on this node: LOCAL_WORLD_SIZE, else distinct GPU processes, else GPUs.
int LocalRanks(const Job& job, std::string* basis) {
  if (const EnvVar* v = job.env.Find("LOCAL_WORLD_SIZE"))
    if (auto n = ParseInt(v->value); n && *n > 0) {
      *basis = "LOCAL_WORLD_SIZE";
      return static_cast<int>(*n);
    }
  std::vector<int64_t> pids;
  for (const auto& p : job.topo.processes) pids.push_back(p.pid);
  std::sort(pids.begin(), pids.end());
  pids.erase(std::unique(pids.begin(), pids.end()), pids.end());
  if (!pids.empty()) {
    *basis = "GPU processes";
    return static_cast<int>(pids.size());
  }
  *basis = "one rank per GPU";
  return static_cast<int>(job.topo.gpus.size());
}

}  // namespace

std::vector<Finding> FindEnvVariables(const Job& job, const Options&) {
  const EnvSnapshot& e = job.env;
  if (!e.captured) return {};
  std::vector<Finding> out;
  for (const auto& v : e.vars) {
    if (!IsCommVariable(v.name)) continue;
    VarVerdict verdict = ClassifyVariable(v, job);
    if (verdict.risk == VarRisk::kNeutral) continue;
    Finding f = NewFinding("env.nccl_override");
    f.severity = verdict.risk == VarRisk::kHarmful ? Severity::kWarning : Severity::kInfo;
    f.title = v.name + "=" + v.value + " (" + VarRiskName(verdict.risk) + "): " + verdict.what;
    f.detail = "Set in the environment commdx ran in; a job launched from it inherits it.";
    f.fix = "Unset " + v.name + " unless it was set on purpose for a measured reason.";
    if (!v.source.empty()) {
      f.detail = "In effect in the job, as printed by " + v.source +
                 "; the value may come from the variable itself or from a setting that implies "
                 "it (TORCH_DISTRIBUTED_DEBUG=DETAIL turns on desync debugging and timing).";
      f.fix = "Unset " + v.name + " (or what implies it) unless it is on for a measured reason.";
    }
    f.refs.push_back(Ref({}, v.name + "=" + v.value));
    out.push_back(std::move(f));
  }
  const EnvVar* omp = e.Find("OMP_NUM_THREADS");
  int64_t threads = omp ? ParseInt(omp->value).value_or(0) : 0;
  int cores = e.online_cpus;
  if (auto allowed = ParseCpuList(e.cpus_allowed); allowed && !allowed->empty())
    cores = std::min<int>(cores ? cores : INT32_MAX, static_cast<int>(allowed->size()));
  std::string basis;
  int ranks = LocalRanks(job, &basis);
  if (threads > 0 && cores > 0 && ranks > 0 && threads * ranks > cores) {
    Finding f = NewFinding("env.omp_oversubscribed");
    f.severity = Severity::kWarning;
    f.title = "OMP_NUM_THREADS=" + omp->value + " x " + std::to_string(ranks) +
              " local ranks = " + std::to_string(threads * ranks) + " threads for " +
              std::to_string(cores) + " cores";
    f.detail =
        "Each rank's OpenMP pool (CPU ops, data loading) competes with the others and with "
        "the threads that launch kernels and drive NCCL; launches arrive late and the GPU "
        "idles. Local ranks counted from " +
        basis + ".";
    f.metrics = {{"omp_threads", static_cast<double>(threads), Unit::kThreads},
                 {"local_ranks", static_cast<double>(ranks), Unit::kRanks},
                 {"cores", static_cast<double>(cores), Unit::kCores}};
    f.refs.push_back(Ref({}, "OMP_NUM_THREADS=" + omp->value));
    f.fix = "Set OMP_NUM_THREADS to cores / local ranks (" +
            std::to_string(std::max(1, cores / ranks)) +
            " here), or 1 as torchrun does by default.";
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace commdx::analysis
