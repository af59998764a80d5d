#include "analysis/table_data.h"

#include <algorithm>
#include <map>
#include <utility>

#include "analysis/env_nccl_vars.h"
#include "analysis/trace_timeline.h"

namespace commdx::analysis {

namespace {

std::vector<TraceBandwidthRow> BandwidthRows(const std::vector<CollectiveBw>& all) {
  std::map<std::pair<CollectiveType, uint64_t>, std::vector<const CollectiveBw*>> groups;
  for (const auto& b : all)
    if (b.bytes > 0) groups[{b.type, b.bytes}].push_back(&b);
  std::vector<TraceBandwidthRow> rows;
  for (const auto& [key, list] : groups) {
    std::vector<int64_t> times;
    std::vector<double> bws;
    for (const auto* b : list) times.push_back(b->time_ns), bws.push_back(b->busbw_gbps);
    std::sort(bws.begin(), bws.end());
    rows.push_back({key.first, key.second, list.size(), Median(std::move(times)),
                    bws[bws.size() / 2], list.front()->expected_busbw_gbps,
                    list.front()->transfer_only});
  }
  return rows;
}

TraceTableData TraceData(const AnalysisInput& input) {
  TraceTableData d;
  const TraceSet& set = input.job().trace;
  if (set.empty()) return d;
  d.pattern = input.comm_pattern();
  for (const auto& r : d.pattern) d.pattern_labels.push_back(CollectiveLabel(r.type, r.family));
  if (!d.pattern.empty()) d.pattern_name = PatternName(d.pattern);
  const TraceFacts& facts = input.trace_facts();
  d.bandwidth = BandwidthRows(facts.bandwidth);
  d.link = facts.link.what;
  d.late = input.late_ranks();
  // Measured per rank with the rest of its measures, kept in rank order.
  // (The rank as the trace set numbered it, after the measure: a rank no trace names is numbered
  // when the set is finished.)
  for (size_t i = 0; i < set.ranks.size(); ++i)
    if (set.ranks[i].has_gpu) {
      d.hta.push_back(facts.measure(i).hta);
      d.hta.back().rank = set.ranks[i].rank;
    }
  return d;
}

TopologyTableData TopologyData(const Topology& t, int nccl_version) {
  TopologyTableData d;
  if (!t.gpus.empty()) {
    Job alone;  // the machine's own expectation, whatever else the job holds
    alone.topo = t;
    d.machine = ExpectedForJob(alone);
  }
  for (const auto& p : t.pairs) {
    ExpectedBandwidth e = ExpectedForPath(t, p.a, p.b, nccl_version);
    std::string path = e.nccl_path == NcclPath::kUnknown ? "" : NcclPathName(e.nccl_path);
    d.pairs.push_back({std::move(e), std::move(path)});
  }
  return d;
}

std::vector<VariableRow> Variables(const Job& job) {
  std::vector<VariableRow> rows;
  for (const auto& v : job.env.vars) {
    if (v.name == "OMP_NUM_THREADS" || v.name == "LOCAL_WORLD_SIZE") {
      rows.push_back({v.name, v.value, "see findings", "threads per rank / ranks on this node"});
      continue;
    }
    if (!IsCommVariable(v.name)) continue;
    VarVerdict verdict = ClassifyVariable(v, job);
    rows.push_back({v.name, v.value, verdict.known ? VarRiskName(verdict.risk) : "unknown",
                    std::move(verdict.what)});
  }
  return rows;
}

}  // namespace

TableData TableDataOf(const AnalysisInput& input, const TableDataRequest& which) {
  TableData d;
  const Job& job = input.job();
  if (which.trace) d.trace = TraceData(input);
  if (which.bench) d.bench = input.bench_summaries();
  if (which.topology) d.topology = TopologyData(job.topo, JobNcclVersion(job));
  if (which.environment) d.variables = Variables(job);
  return d;
}

}  // namespace commdx::analysis
