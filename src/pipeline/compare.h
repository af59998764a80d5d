// `commdx compare A B` through the pipeline: reads two saved results (ingest's saved-result
// reader; a `topo`/`env --save` snapshot is first diagnosed, as `commdx diagnose SNAPSHOT
// --format json` would), refuses results of another commdx version or of different commands,
// diffs them (diagnose::Compare) and returns the report of what changed.
#pragma once

#include <string>

#include "base/result.h"
#include "diagnose/compare.h"
#include "report/report.h"

namespace commdx::pipeline {

struct CompareRequest {
  std::string a;  // the baseline
  std::string b;
  diagnose::CompareOptions options;
};

struct CompareOutcome {
  report::Report report;
  bool regressed = false;  // B has an error-level finding A has not
};

Result<CompareOutcome> RunCompare(const CompareRequest& request);

}  // namespace commdx::pipeline
