// comm.init_incomplete (info): a communicator's init started ("Init START", 2.18.3+) on more
// ranks than completed ("Init COMPLETE"). If the job hung, it hung in init (bootstrap, topology,
// connection setup) and not in a collective; a log cut short looks the same, hence info.
#include "analysis/catalogue.h"
#include "analysis/comm_analyzers.h"
#include "analysis/comm_common.h"

namespace commdx::analysis {

std::vector<Finding> FindCommInitIncomplete(const Job& job, const Options&) {
  std::vector<Finding> out;
  for (const auto& c : job.nccl.communicators) {
    if (c.init_start == 0 || c.init_complete >= c.init_start) continue;
    Finding f = NewFinding("comm.init_incomplete");
    f.severity = Severity::kInfo;
    f.method_step = 4;
    f.confidence = 0.5;
    f.title = "Communicator " + c.comm_id + ": " + std::to_string(c.init_start) +
              " init started, " + std::to_string(c.init_complete) + " completed";
    f.detail =
        "Some ranks never logged 'Init COMPLETE'. If the job hung, it hung while creating "
        "this communicator (bootstrap, topology detection or connection setup), not in a "
        "collective; if the log was cut short, ignore this.";
    f.fix =
        "Look at the last lines of the ranks without COMPLETE and at WARNs on other hosts; "
        "NCCL_DEBUG_SUBSYS=INIT,BOOTSTRAP,NET shows where init stops.";
    std::vector<const NcclLineRef*> refs;
    for (const auto& r : c.init_refs) refs.push_back(&r);
    AddEvidence(f, refs, 3);
    f.metrics.push_back({"init_started", static_cast<double>(c.init_start), Unit::kCount});
    f.metrics.push_back({"init_completed", static_cast<double>(c.init_complete), Unit::kCount});
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace commdx::analysis
