// The whole diagnosis of one input file as `diagnose` runs it (load, analyzers, ranking, root
// cause), for tests that check what a label asks of it.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/analysis_input.h"
#include "diagnose/diagnosis.h"
#include "ingest/load_inputs.h"

namespace commdx::testing {

struct Diagnosed {
  Job job;
  std::vector<Finding> findings;
  std::optional<diagnose::RootCause> root;
};

inline Diagnosed DiagnoseFile(const std::string& path) {
  Diagnosed r;
  auto job = ingest::LoadInputs({path});
  EXPECT_TRUE(job.has_value()) << path;
  if (!job) return r;
  r.job = std::move(*job);
  analysis::AnalysisInput input(r.job, 1);
  diagnose::Diagnosis d = diagnose::Diagnose(input);
  r.findings = std::move(d.findings);
  r.root = std::move(d.root_cause);
  return r;
}

// Whether a finding's text holds `part`.
inline bool Has(const std::string& s, std::string_view part) { return s.find(part) != s.npos; }

// The first finding with this id, or nullptr.
inline const Finding* FindingWithId(const Diagnosed& r, std::string_view id) {
  for (const auto& f : r.findings)
    if (f.id == id) return &f;
  return nullptr;
}

}  // namespace commdx::testing
