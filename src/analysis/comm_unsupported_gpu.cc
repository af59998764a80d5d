// comm.unsupported_gpu (+ comm.nccl_too_old): the NCCL build cannot run its kernels on this GPU
// ("ncclMaxSharedMem 82240 exceeds device/fn maxSharedMem 79856": NCCL 2.25 on sm_120 Blackwell
// GeForce), fixed in NCCL 2.26.2.
#include "analysis/catalogue.h"
#include "analysis/comm_analyzers.h"
#include "analysis/comm_common.h"

namespace commdx::analysis {

std::vector<Finding> FindCommUnsupportedGpu(const Job& job, const Options&) {
  std::vector<const NcclLineRef*> refs;
  for (const auto& n : job.nccl.notes)
    if (n.kind == "max_shared_mem") refs.push_back(&n.ref);
  if (refs.empty()) return {};
  std::string version = JobVersion(job.nccl);
  Finding f = NewFinding("comm.unsupported_gpu");
  f.severity = Severity::kError;
  f.method_step = 9;
  f.title = "NCCL's kernels do not fit this GPU (shared memory per block exceeded)";
  f.detail =
      "NCCL needs more shared memory per thread block than the GPU offers: this NCCL "
      "build does not support the GPU architecture (seen with NCCL 2.25 on RTX 50xx, "
      "sm_120). Every collective fails.";
  f.fix = "Upgrade to NCCL >= 2.26.2 (and a PyTorch build that ships it).";
  AddEvidence(f, refs, 3);
  std::vector<Finding> out{f};
  if (version.empty() || CompareVersions(version, "2.26.2") < 0) {
    Finding old = NewFinding("comm.nccl_too_old");
    old.severity = Severity::kWarning;
    old.method_step = 9;
    old.title = "NCCL " + (version.empty() ? std::string("(version not logged)") : version) +
                " predates the fix for this GPU (2.26.2)";
    old.detail = "The shared-memory check for Blackwell GeForce was fixed in NCCL 2.26.2.";
    old.fix = "Upgrade NCCL to 2.26.2 or later.";
    AddEvidence(old, refs, 1);
    out.push_back(std::move(old));
  }
  return out;
}

}  // namespace commdx::analysis
