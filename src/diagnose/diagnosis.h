// Joins findings from every source into one ranked diagnosis with a root cause.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/finding.h"
#include "model/job.h"

namespace commdx::diagnose {

struct RootCause {
  std::string id;          // the finding id that is the root cause
  double confidence = 0;   // 0..1
  std::string summary;     // one paragraph: what, the joined evidence, the fix
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
  std::optional<RootCause> root_cause;
  std::vector<Gap> not_checked;
};

// Orders findings: severity, then measured cost per step, then confidence; stable otherwise.
void RankFindings(std::vector<Finding>& findings);

// Merges findings with the same id and rank (keeps the strongest, unions the evidence).
std::vector<Finding> MergeDuplicates(std::vector<Finding> findings);

// Picks the root cause among ranked findings with the cause → symptom rules (causes.h):
// a cause that explains symptoms from other sources inherits their cost and gains confidence.
// Moves the root cause to the front and notes on each explained symptom what explains it.
// `sources_read` names the sources present ("logs", "trace", "bench", "topo", "env") so an
// expected symptom that is absent from a source that was read counts as contradicting evidence.
std::optional<RootCause> PickRootCause(std::vector<Finding>& ranked,
                                       const std::vector<std::string>& sources_read = {});

// The sources a job's inputs cover: "logs", "trace", "bench", "topo", "env".
std::vector<std::string> SourcesRead(const Job& job);

std::vector<Gap> FindGaps(const Job& job);

Diagnosis Diagnose(const Job& job, std::vector<Finding> findings);

}  // namespace commdx::diagnose
