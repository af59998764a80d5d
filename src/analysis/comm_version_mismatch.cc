// comm.version_mismatch: processes of one job report different NCCL versions ("NCCL version
// 2.18.1+cuda12.1" on one host, 2.14.3 on another). Mixed versions can fail in bootstrap
// ("connecting to address with family N is neither AF_INET nor AF_INET6") or hang. Versions come
// from NCCL's own log lines and from the job log's ProcessGroupNCCL lines (per rank).
#include <map>
#include <set>

#include "analysis/catalogue.h"
#include "analysis/comm_analyzers.h"
#include "analysis/comm_common.h"

namespace commdx::analysis {

std::vector<Finding> FindCommVersionMismatch(const Job& job, const Options&) {
  const NcclSetup& s = job.nccl;
  std::map<std::string, std::vector<NcclLineRef>> by_version;
  std::map<std::string, std::set<std::string>> hosts;  // version -> hosts that print it
  for (const auto& p : s.processes)
    if (!p.version.empty()) {
      by_version[p.version].push_back({p.version_loc, p.version_line});
      if (!p.host.empty()) hosts[p.version].insert(p.host);
    }
  for (const auto& v : s.loose_versions)
    if (!v.version.empty()) {
      by_version[v.version].push_back(v.ref);
      if (!v.host.empty()) hosts[v.version].insert(v.host);
    }
  // The job's own log: ProcessGroupNCCL prints the NCCL version PyTorch loaded, per rank.
  std::map<std::string, std::set<int>> ranks;  // version -> ranks whose job log prints it
  for (const ProcessGroupInit& g : job.job_log.process_groups) {
    if (g.nccl_version.empty()) continue;
    auto& refs = by_version[g.nccl_version];
    if (refs.empty())  // NCCL's own line, where there is one, stays the evidence
      refs.push_back({g.loc, "ProcessGroupNCCL: NCCL version: " + g.nccl_version});
    if (g.rank >= 0) ranks[g.nccl_version].insert(g.rank);
  }
  if (by_version.size() < 2) return {};
  Finding f = NewFinding("comm.version_mismatch");
  f.severity = Severity::kError;
  f.method_step = 9;
  std::string list;
  for (const auto& [v, refs] : by_version) {
    list += (list.empty() ? "" : ", ") + v;
    if (hosts.count(v)) list += " on " + HostList(hosts[v]);
    if (ranks.count(v)) {
      list += hosts.count(v) ? " and rank" : " on rank";
      if (ranks[v].size() > 1) list += "s";
      std::string sep = " ";
      for (int r : ranks[v]) {
        list += sep + std::to_string(r);
        sep = ", ";
      }
    }
    f.refs.push_back(Evidence(refs.front()));
  }
  f.title = "Ranks run different NCCL versions: " + list;
  f.detail =
      "NCCL's wire protocol and bootstrap are not compatible across versions; mixed "
      "versions fail at init or hang. Usually one node has another container image, a "
      "different PyTorch wheel, or LD_LIBRARY_PATH pointing at another libnccl.";
  f.fix =
      "Use one NCCL build on every node (same container image / wheel); check with "
      "`python -c 'import torch; print(torch.cuda.nccl.version())'` on each node.";
  f.metrics.push_back({"versions", static_cast<double>(by_version.size()), Unit::kCount});
  return {f};
}

}  // namespace commdx::analysis
