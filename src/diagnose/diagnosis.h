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

// One of the largest savings, when no single finding explains most of the loss.
struct TopSaving {
  std::string id;
  std::optional<int> rank;
  double saving_ns = 0;
};

struct RootCause {
  std::string id;                       // the finding id that is the root cause
  double confidence = 0;                // 0..1
  std::string summary;                  // one paragraph: what, the joined evidence, the fix
  std::vector<std::string> supporting;  // ids of the findings that agree
  std::vector<std::string> contradicting;
  double saving_ns = 0;        // what fixing it saves per step (0: not measured)
  double step_ns = 0;          // the step that saving is a share of (0: unknown)
  bool single = true;          // false: no single finding explains most of the loss
  std::vector<TopSaving> top;  // when !single: the largest savings, largest first
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

// Orders findings: measured savings first (largest first), then the unmeasured by severity,
// then confidence; stable otherwise.
void RankFindings(std::vector<Finding>& findings);

// Fills the step of trace findings that have a saving but no step (their rank's mean step, else
// the job's) and caps every saving at its step.
void PriceFindings(std::vector<Finding>& findings, const analysis::AnalysisInput& input);

// One finding per cause: findings with the same id raised on several ranks become one, spoken
// for by the worst rank, naming the ranks as ranges and the spread, with each rank's share kept
// in per_rank.
std::vector<Finding> GroupAcrossRanks(std::vector<Finding> findings);

// Merges findings with the same id and rank (keeps the strongest, unions the evidence).
std::vector<Finding> MergeDuplicates(std::vector<Finding> findings);

// Picks the root cause among ranked findings: the largest saving per step, a cause explaining a
// symptom (causes.h) only when its saving accounts for the symptom's cost; a cause measured
// nowhere (a setting in a log) is worth the largest saving it explains and gains confidence
// from each source that shows its effect. A job that failed is asked why it failed first.
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
