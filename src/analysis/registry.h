// The one list of analyzers. Each is a pure function Job -> Findings, in its own file.
#pragma once

#include <string>
#include <vector>

#include "model/finding.h"
#include "model/job.h"

namespace commdx::analysis {

struct Options {
  // Room for thresholds that users may tune; defaults are documented in docs/findings.md.
  double few_channels_threshold = 4;
};

struct Analyzer {
  const char* name;
  const char* description;
  const char* source;  // "logs", "trace", "topo", "env", "bench"
  std::vector<Finding> (*run)(const Job& job, const Options& options);
};

const std::vector<Analyzer>& Analyzers();

// Runs every analyzer whose source is in `sources` (all if empty), in registry order.
std::vector<Finding> RunAnalyzers(const Job& job, const Options& options,
                                  const std::vector<std::string>& sources = {});

struct TraceFacts;
// The same for every source, with the trace facts the caller already computed (diagnose draws
// charts from them too; on a big trace they are the costly part of the analysis).
std::vector<Finding> RunAnalyzers(const Job& job, const Options& options, const TraceFacts& facts);

// Fills severity/title/step from the catalogue where an analyzer left them default.
void ApplyCatalogueDefaults(Finding& finding);

}  // namespace commdx::analysis
