// The catalogue of findings commdx can raise (docs/findings.md). Ids are stable once released.
// Each id's source, default severity, role, method step and title are kept here and nowhere
// else: the analysis run (registry.cc) stamps them on every finding.
#pragma once

#include <string_view>
#include <vector>

#include "model/finding.h"

namespace commdx::analysis {

// What a finding is to the root-cause search (diagnose/root_cause.cc).
enum class Role {
  kCause,    // can be the root cause
  kSymptom,  // an effect (slow, exposed, skewed): named only when no cause explains it
  kContext,  // describes the job (its communication pattern); never the root cause
};
const char* RoleName(Role r);  // "cause" | "symptom" | "context"

struct CatalogueEntry {
  const char* id;
  Source source;  // the input that shows it
  Role role;
  Severity default_severity;  // what the analyzer starts from; evidence may raise or lower it
  int method_step;            // docs/method.md step
  const char* title;          // what it means, one line
};

const std::vector<CatalogueEntry>& Catalogue();
const CatalogueEntry* FindCatalogueEntry(std::string_view id);

// A finding with its id and the catalogue's severity, title and method step; an analyzer then
// adds what it saw (and raises or lowers the severity where its evidence says so).
Finding NewFinding(std::string_view id);

// A finding's role; an id outside the catalogue is a cause.
Role RoleOf(std::string_view id);

}  // namespace commdx::analysis
