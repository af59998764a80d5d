// What explains what: the cause → symptom rules the diagnosis uses to join findings from
// different sources into one root cause (docs/diagnosis.md: exposed communication in the trace +
// `via SHM` in the logs → "P2P disabled"). A rule says a cause *may* explain a symptom; the root
// cause search (root_cause.cc) also asks that a measured cause save at least half of what the
// symptom costs.
#pragma once

#include <string_view>
#include <vector>

#include "model/finding.h"

namespace commdx::diagnose {

struct CauseRule {
  const char* cause;                  // a finding id that can be a root cause
  std::vector<const char*> explains;  // symptom ids it accounts for when present with it
  bool same_rank = false;             // symptoms only count when they name the same rank
  // Findings it explains only when its own measured cost is at least theirs: their idle is
  // measured apart from its own (idle_attribution.h), so it explains them only where it is the
  // larger share of the idle the two describe.
  std::vector<const char*> explains_if_larger = {};
};

const std::vector<CauseRule>& CauseRules();

// A finding that only describes an effect (slow, exposed, skewed) or the job itself, and is never
// a root cause on its own while a cause that explains it is present (its catalogue role).
bool IsSymptom(std::string_view id);

// A limit the user set on NCCL's resources (a channel cap): with the transport it sits on it
// explains the same slow communication, and a healthy run on that transport lacks it, so on a
// tie it is named first.
bool IsUserLimit(const Finding& f);

// A finding that means the job failed (hung, crashed, could not connect) rather than ran slow:
// when one is present at warning or error level, the root cause is taken among these.
bool IsFailure(std::string_view id);

}  // namespace commdx::diagnose
