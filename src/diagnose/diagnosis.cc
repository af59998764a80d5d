#include "diagnose/diagnosis.h"

#include <algorithm>
#include <map>

namespace commdx::diagnose {

void RankFindings(std::vector<Finding>& findings) {
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    if (a.severity != b.severity) return MoreSevere(a.severity, b.severity);
    double ca = a.cost_ns_per_step.value_or(-1), cb = b.cost_ns_per_step.value_or(-1);
    if (ca != cb) return ca > cb;
    return a.confidence > b.confidence;
  });
}

std::vector<Finding> MergeDuplicates(std::vector<Finding> findings) {
  std::vector<Finding> out;
  std::map<std::pair<std::string, int>, size_t> seen;
  for (auto& f : findings) {
    auto key = std::make_pair(f.id + "\x1f" + f.title, f.rank.value_or(-1));
    auto it = seen.find(key);
    if (it == seen.end()) {
      seen.emplace(key, out.size());
      out.push_back(std::move(f));
      continue;
    }
    Finding& kept = out[it->second];
    if (MoreSevere(f.severity, kept.severity)) kept.severity = f.severity;
    kept.confidence = std::max(kept.confidence, f.confidence);
    for (auto& r : f.refs) kept.refs.push_back(std::move(r));
  }
  return out;
}

std::vector<Gap> FindGaps(const Job& job) {
  std::vector<Gap> gaps;
  if (job.nccl.empty())
    gaps.push_back({"NCCL transports, channels and warnings (no NCCL log)",
                    "rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH,ENV,NET "
                    "NCCL_DEBUG_FILE=nccl.%h.%p.log"});
  if (job.topo.empty())
    gaps.push_back({"GPU topology, NVLink health and rank placement (no topology)",
                    "run `commdx topo --save topo.json` on the node while the job runs (or save "
                    "`nvidia-smi topo -m` output) and pass the file"});
  if (!job.env.captured)
    gaps.push_back(
        {"environment: NCCL/CUDA variables, /dev/shm, memlock, NCCL library (no snapshot)",
         "run `commdx env --save env.json` where the job runs and pass the file"});
  return gaps;
}

Diagnosis Diagnose(const analysis::AnalysisInput& input, const DiagnoseOptions& options) {
  const Job& job = input.job();
  Diagnosis d;
  d.findings = MergeDuplicates(analysis::RunAnalyzers(input, options.analysis, options.sources));
  RankFindings(d.findings);
  auto root = PickRootCause(d.findings, SourcesRead(job));
  d.root_cause_named = options.name_root_cause;
  if (options.name_root_cause) d.root_cause = std::move(root);
  if (options.list_gaps) d.not_checked = FindGaps(job);
  return d;
}

}  // namespace commdx::diagnose
