#include "analysis/replay_plan.h"

#include <array>

#include "analysis/replay_sources.h"

namespace commdx::analysis {

namespace {

struct Source {
  const char* name;  // the input, as a sentence names it
  bool present;
  ReplayPlan (*build)(const Job&);
};

}  // namespace

ReplayPlan BuildReplayPlan(const Job& job) {
  // Best first: traces time every call by its kernel and know its datatype and group; Inspector
  // times every call it kept; Flight Recorder keeps only the last calls, timed or not; COLL
  // lines have sizes only.
  const std::array<Source, 4> sources = {{
      {"The profiler traces", !job.trace.empty(),
       [](const Job& j) { return replay::FromTrace(j.trace); }},
      {"The NCCL Inspector records", !job.inspector.empty(),
       [](const Job& j) { return replay::FromInspector(j.inspector); }},
      {"The Flight Recorder dumps", !job.flight.empty(),
       [](const Job& j) { return replay::FromFlight(j.flight); }},
      {"The NCCL logs' COLL lines", !job.nccl.call_streams.empty(),
       [](const Job& j) { return replay::FromNcclLog(j.nccl); }},
  }};
  // What better sources that gave no call left out, and that they gave none.
  std::vector<std::string> passed;
  for (const Source& s : sources) {
    if (!s.present) continue;
    ReplayPlan plan = s.build(job);
    if (!plan.groups.empty()) {
      plan.left_out.insert(plan.left_out.begin(), passed.begin(), passed.end());
      return plan;
    }
    passed.push_back(std::string(s.name) + " give no call that can be replayed" +
                     (plan.left_out.empty() ? "." : ":"));
    for (const std::string& line : plan.left_out) passed.push_back("  " + line);
  }
  ReplayPlan none;
  none.left_out = std::move(passed);
  if (none.left_out.empty())
    none.left_out.push_back(
        "No input lists the job's collectives: a profiler trace (Kineto or Nsight Systems), NCCL "
        "Inspector JSONL, a Flight Recorder dump or an NCCL log with NCCL_DEBUG_SUBSYS=COLL.");
  return none;
}

}  // namespace commdx::analysis
