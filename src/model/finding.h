// A Finding: one thing commdx concluded, with the evidence that proves it and the fix.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "model/metric_unit.h"

namespace commdx {

enum class Severity { kInfo, kWarning, kError };
const char* SeverityName(Severity s);  // "info" | "warning" | "error"
// The one severity order (error > warning > info): ranking, merging and root cause use it.
bool MoreSevere(Severity a, Severity b);

// The kind of input a finding reads. kNone only on a finding built by hand, outside a run.
enum class Source { kNone, kTrace, kLogs, kBench, kTopo, kEnv };
const char* SourceName(Source s);  // "" | "trace" | "logs" | "bench" | "topo" | "env"

// A named number with its unit, e.g. {"busbw", 21.0, Unit::kGBps} or {"wait", 1.2e6, Unit::kNs}.
struct Metric {
  std::string name;
  double value = 0;
  Unit unit = Unit::kNone;
};

// A place in an input that proves the finding: a log line (file:line + its text), or a trace
// event described in words ("rank 1, step 3, ncclDevKernel_AllReduce... at +12.3 ms").
struct EvidenceRef {
  SourceLoc where;
  std::string text;
};

// One rank's share of a finding that several ranks raise (one finding per cause, not per rank).
struct RankShare {
  int rank = -1;
  double saving_ns = 0;  // that rank's own saving per step (0: not measured)
  double step_ns = 0;    // that rank's step (0: unknown)
};

struct Finding {
  std::string id;  // stable catalogue id, e.g. "comm.socket_fallback"
  Severity severity = Severity::kWarning;
  std::string title;   // one line, plain words
  std::string detail;  // what was seen and why it matters (a few sentences)
  std::vector<Metric> metrics;
  std::vector<EvidenceRef> refs;
  std::string fix;
  double confidence = 1.0;  // 0..1
  int method_step = 0;      // method step this belongs to (1..11, docs/method.md), 0 = none
  // What fixing this would save per training step, where it is measured: a counterfactual
  // from the measured timeline (the step as it would run without this cause), never more than
  // the step. The root cause is the finding with the largest saving (diagnose/root_cause.cc).
  std::optional<double> saving_ns_per_step;
  // The step the saving is a share of (the mean step of the rank it was measured on).
  std::optional<double> step_ns;
  std::optional<int> rank;        // the rank involved, where one is (grouped: the worst one)
  // Several ranks raised this finding: every rank's share, worst first (rank is the first's).
  std::vector<RankShare> per_rank;
  // Its saving needs hardware the job does not have (TCP between nodes that have no RDMA
  // device): a bound of the platform, not a fault. It is the root cause only when no finding
  // the user can fix has a saving (diagnose/root_cause.cc).
  bool platform_bound = false;
  Source source = Source::kNone;  // set from the catalogue by the analysis run
};

}  // namespace commdx
