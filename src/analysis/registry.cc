#include "analysis/registry.h"

#include <algorithm>

#include "analysis/bench_analyzers.h"
#include "analysis/catalogue.h"

namespace commdx::analysis {

const std::vector<Analyzer>& Analyzers() {
  static const std::vector<Analyzer> kAnalyzers = {
      {"bench_low_busbw", "benchmark plateau busbw vs the link's line rate", "bench", &FindBenchLowBusbw},
      {"bench_high_latency", "benchmark small-message latency floor", "bench", &FindBenchHighLatency},
      {"bench_asymmetric_pair", "P2P pair slower than its peers", "bench", &FindBenchAsymmetricPair},
      {"bench_wrong_results", "collective results checked wrong", "bench", &FindBenchWrongResults},
  };
  return kAnalyzers;
}

void ApplyCatalogueDefaults(Finding& finding) {
  const CatalogueEntry* e = FindCatalogueEntry(finding.id);
  if (!e) return;
  if (finding.title.empty()) finding.title = e->title;
  if (finding.method_step == 0) finding.method_step = e->method_step;
}

std::vector<Finding> RunAnalyzers(const Job& job, const Options& options,
                                  const std::vector<std::string>& sources) {
  std::vector<Finding> out;
  for (const auto& a : Analyzers()) {
    if (!sources.empty() && std::find(sources.begin(), sources.end(), a.source) == sources.end())
      continue;
    for (auto& f : a.run(job, options)) {
      if (f.source.empty()) f.source = a.source;
      ApplyCatalogueDefaults(f);
      out.push_back(std::move(f));
    }
  }
  return out;
}

}  // namespace commdx::analysis
