#include "diagnose/diagnosis.h"

#include <algorithm>
#include <map>

#include "analysis/trace_facts.h"
#include "base/text.h"

namespace commdx::diagnose {

void RankFindings(std::vector<Finding>& findings) {
  // Measured savings first, largest first: a 0.2 ms error must not bury an 18 ms warning.
  // Findings nobody could price follow, by severity.
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    double ca = a.saving_ns_per_step.value_or(-1), cb = b.saving_ns_per_step.value_or(-1);
    const bool ma = ca > 0, mb = cb > 0;
    if (ma != mb) return ma;
    if (ma && ca != cb) return ca > cb;
    if (a.severity != b.severity) return MoreSevere(a.severity, b.severity);
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

void PriceFindings(std::vector<Finding>& findings, const analysis::AnalysisInput& input) {
  const bool any_trace = std::any_of(findings.begin(), findings.end(), [](const Finding& f) {
    return f.source == Source::kTrace && f.saving_ns_per_step && !f.step_ns;
  });
  std::map<int, double> step_of_rank;
  double mean_step_ns = 0;
  if (any_trace && !input.job().trace.ranks.empty()) {
    const analysis::TraceFacts& facts = input.trace_facts();
    const auto& ranks = input.job().trace.ranks;
    for (size_t i = 0; i < ranks.size() && i < facts.rank_means.size(); ++i)
      if (facts.rank_means[i].step > 0)
        step_of_rank[ranks[i].rank] = static_cast<double>(facts.rank_means[i].total_ns());
    mean_step_ns = analysis::MeanStepNs(facts);
  }
  for (Finding& f : findings) {
    if (f.saving_ns_per_step && !f.step_ns && f.source == Source::kTrace) {
      auto it = f.rank ? step_of_rank.find(*f.rank) : step_of_rank.end();
      const double step = it != step_of_rank.end() ? it->second : mean_step_ns;
      if (step > 0) f.step_ns = step;
    }
    if (f.saving_ns_per_step && *f.saving_ns_per_step < 0) f.saving_ns_per_step = 0;
    if (f.saving_ns_per_step && f.step_ns && *f.step_ns > 0)
      f.saving_ns_per_step = std::min(*f.saving_ns_per_step, *f.step_ns);
  }
}

namespace {

// "0-3,5,7-9" for distinct ranks; after `max_ranges` ranges, ",..." (the JSON has them all).
std::string RankRanges(std::vector<int> ranks, size_t max_ranges) {
  std::sort(ranks.begin(), ranks.end());
  std::string out;
  size_t ranges = 0;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (++ranges > max_ranges) return out + ",...";
    out += (out.empty() ? "" : ",") + std::to_string(ranks[i]);
    if (j > i) out += "-" + std::to_string(ranks[j]);
    i = j + 1;
  }
  return out;
}

constexpr size_t kTitleRanges = 4;    // rank ranges named in a grouped finding's title
constexpr size_t kDetailRanges = 64;  // and in its detail

constexpr size_t kGroupedRefs = 8;  // evidence lines kept on a grouped finding

}  // namespace

std::vector<Finding> GroupAcrossRanks(std::vector<Finding> findings) {
  std::map<std::string, std::vector<size_t>> by_id;  // findings with a rank, per id
  for (size_t i = 0; i < findings.size(); ++i)
    if (findings[i].rank && findings[i].per_rank.empty()) by_id[findings[i].id].push_back(i);
  std::vector<bool> drop(findings.size(), false);
  for (auto& [id, idx] : by_id) {
    // One rank seen through several sources (a dump, a job log, the analyzer's text) is not a
    // spread across ranks: those findings stay as they are.
    std::vector<int> distinct;
    for (size_t k : idx) distinct.push_back(*findings[k].rank);
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    if (distinct.size() < 2) continue;
    // The worst rank (largest saving, then most severe) speaks for the group.
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
      double sa = findings[a].saving_ns_per_step.value_or(0);
      double sb = findings[b].saving_ns_per_step.value_or(0);
      if (sa != sb) return sa > sb;
      return MoreSevere(findings[a].severity, findings[b].severity);
    });
    Finding& keep = findings[idx.front()];
    std::vector<int> ranks;
    std::vector<double> savings;
    size_t refs_total = 0;
    std::vector<EvidenceRef> refs;
    for (size_t k : idx) {
      const Finding& f = findings[k];
      // Worst first: a rank's first finding is its largest share.
      if (std::find(ranks.begin(), ranks.end(), *f.rank) == ranks.end()) {
        ranks.push_back(*f.rank);
        savings.push_back(f.saving_ns_per_step.value_or(0));
        keep.per_rank.push_back(
            {*f.rank, f.saving_ns_per_step.value_or(0), f.step_ns.value_or(0)});
      }
      if (MoreSevere(f.severity, keep.severity)) keep.severity = f.severity;
      keep.confidence = std::max(keep.confidence, f.confidence);
      refs_total += f.refs.size();
      for (const auto& r : f.refs)
        if (refs.size() < kGroupedRefs) refs.push_back(r);
      if (k != idx.front()) drop[k] = true;
    }
    keep.refs = std::move(refs);
    std::vector<double> sorted = savings;
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted[sorted.size() / 2];
    keep.title += " (" + std::to_string(ranks.size()) + " ranks: " +
                  RankRanges(ranks, kTitleRanges) + ")";
    std::string spread = "Raised on " + std::to_string(ranks.size()) + " ranks (" +
                         RankRanges(ranks, kDetailRanges) + "); rank " +
                         std::to_string(*keep.rank) +
                         " is the worst";
    if (sorted.back() > 0)
      spread += " (saving " + FormatDurationNs(sorted.back()) + " per step; median over the "
                "ranks " + FormatDurationNs(median) + ")";
    spread += ".";
    if (refs_total > keep.refs.size())
      spread += " Evidence: " + std::to_string(keep.refs.size()) + " of " +
                std::to_string(refs_total) + " places shown; every rank's share is in the JSON "
                "report (per_rank).";
    keep.detail = spread + (keep.detail.empty() ? "" : " ") + keep.detail;
  }
  std::vector<Finding> out;
  out.reserve(findings.size());
  for (size_t i = 0; i < findings.size(); ++i)
    if (!drop[i]) out.push_back(std::move(findings[i]));
  return out;
}

Diagnosis Diagnose(const analysis::AnalysisInput& input, const DiagnoseOptions& options) {
  const Job& job = input.job();
  Diagnosis d;
  d.findings = MergeDuplicates(analysis::RunAnalyzers(input, options.analysis, options.sources));
  PriceFindings(d.findings, input);
  d.findings = GroupAcrossRanks(std::move(d.findings));
  RankFindings(d.findings);
  auto root = PickRootCause(d.findings, SourcesRead(job));
  d.root_cause_named = options.name_root_cause;
  if (options.name_root_cause) d.root_cause = std::move(root);
  if (options.list_gaps) d.not_checked = FindGaps(job);
  return d;
}

}  // namespace commdx::diagnose
