// The one list of analyzers. Each is a pure function of what it reads (the job, or the trace
// and its facts), in its own file; the run stamps each finding with its catalogue facts.
#pragma once

#include <vector>

#include "analysis/analysis_input.h"
#include "model/finding.h"
#include "model/job.h"

namespace commdx::analysis {

struct Options {
  // Room for thresholds that users may tune; defaults are documented in docs/findings.md.
  double few_channels_threshold = 4;
};

struct Analyzer {
  const char* name;
  const char* description;  // one line, for `commdx diagnose --list`
  Source source;            // the input it reads; a run for some sources picks by it
  std::vector<Finding> (*run)(const AnalysisInput& input, const Options& options);
};

const std::vector<Analyzer>& Analyzers();

// Runs every analyzer whose source is in `sources` (all if empty), in registry order. Each
// finding leaves with the catalogue's source and, where the analyzer left them empty, its title
// and method step (catalogue.h).
std::vector<Finding> RunAnalyzers(const AnalysisInput& input, const Options& options,
                                  const std::vector<Source>& sources = {});
// The same for a job whose trace facts nobody else needs.
std::vector<Finding> RunAnalyzers(const Job& job, const Options& options,
                                  const std::vector<Source>& sources = {});

}  // namespace commdx::analysis
