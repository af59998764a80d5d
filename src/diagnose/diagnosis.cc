#include "diagnose/diagnosis.h"

#include <algorithm>
#include <map>

namespace commdx::diagnose {

namespace {

int SeverityRank(Severity s) {
  switch (s) {
    case Severity::kError:
      return 2;
    case Severity::kWarning:
      return 1;
    case Severity::kInfo:
      return 0;
  }
  return 0;
}

}  // namespace

void RankFindings(std::vector<Finding>& findings) {
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    if (SeverityRank(a.severity) != SeverityRank(b.severity))
      return SeverityRank(a.severity) > SeverityRank(b.severity);
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
    if (SeverityRank(f.severity) > SeverityRank(kept.severity)) kept.severity = f.severity;
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
    gaps.push_back({"environment: NCCL/CUDA variables, /dev/shm, memlock, NCCL library (no snapshot)",
                    "run `commdx env --save env.json` where the job runs and pass the file"});
  return gaps;
}

Diagnosis Diagnose(const Job& job, std::vector<Finding> findings) {
  Diagnosis d;
  d.findings = MergeDuplicates(std::move(findings));
  RankFindings(d.findings);
  d.root_cause = PickRootCause(d.findings, SourcesRead(job));
  d.not_checked = FindGaps(job);
  return d;
}

}  // namespace commdx::diagnose
