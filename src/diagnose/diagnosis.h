// Joins findings from every source into one ranked diagnosis with a root cause.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/analysis_input.h"
#include "analysis/registry.h"
#include "model/finding.h"
#include "model/job.h"

namespace commdx::diagnose {

struct RootCause {
  std::string id;                       // the finding id that is the root cause
  double confidence = 0;                // 0..1
  std::string summary;                  // one paragraph: what, the joined evidence, the fix
  std::vector<std::string> supporting;  // ids of the findings that agree
  std::vector<std::string> contradicting;
};

// Something commdx could not check, and the artifact that would let it.
struct Gap {
  std::string what;
  std::string how;
};

struct Diagnosis {
  std::vector<Finding> findings;  // ranked, most important first
  bool root_cause_named = true;   // false: a single-source look that names none (see options)
  std::optional<RootCause> root_cause;
  std::vector<Gap> not_checked;
};

// What a command asks of the diagnosis.
struct DiagnoseOptions {
  std::vector<Source> sources;  // run the analyzers of these sources; empty: all
  // false: causes still order the findings and note what they explain, but no root cause is
  // named (one source alone: the join across sources is diagnose's).
  bool name_root_cause = true;
  bool list_gaps = true;  // what other inputs would let commdx check (FindGaps)
  analysis::Options analysis;

  // A look at some sources alone: no root cause named, no gaps for the other sources.
  static DiagnoseOptions Only(std::vector<Source> only) {
    DiagnoseOptions o;
    o.sources = std::move(only);
    o.name_root_cause = false;
    o.list_gaps = false;
    return o;
  }
};

// Orders findings: severity, then measured cost per step, then confidence; stable otherwise.
void RankFindings(std::vector<Finding>& findings);

// Merges findings with the same id and rank (keeps the strongest, unions the evidence).
std::vector<Finding> MergeDuplicates(std::vector<Finding> findings);

// Picks the root cause among ranked findings with the cause → symptom rules (causes.h):
// a cause that explains symptoms from other sources inherits their cost and gains confidence.
// Moves the root cause to the front and notes on each explained symptom what explains it.
// `sources_read` names the sources present so an expected symptom that is absent from a source
// that was read counts as contradicting evidence.
std::optional<RootCause> PickRootCause(std::vector<Finding>& ranked,
                                       const std::vector<Source>& sources_read = {});

// The sources a job's inputs cover, in the order of their names ("bench" < "env" < ... "trace").
std::vector<Source> SourcesRead(const Job& job);

std::vector<Gap> FindGaps(const Job& job);

// Runs the analyzers the options ask for, then merges, ranks and names the root cause.
Diagnosis Diagnose(const analysis::AnalysisInput& input, const DiagnoseOptions& options = {});

}  // namespace commdx::diagnose
