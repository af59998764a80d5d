// comm.nvls_unavailable (info): NVLink SHARP is not available ("NVLS multicast support is not
// available on dev N", or "0 nvls channels" where NVLS was not switched off by
// NCCL_NVLS_ENABLE=0). Normal on GPUs without NVSwitch (A100, PCIe, consumer); on H100/H200/B200
// NVSwitch systems it costs all_reduce bandwidth (about 480 vs 370 GB/s busbw on 8xH100).
#include "analysis/catalogue.h"
#include "analysis/comm_analyzers.h"
#include "analysis/comm_common.h"

namespace commdx::analysis {

std::vector<Finding> FindCommNvls(const Job& job, const Options&) {
  const NcclSetup& s = job.nccl;
  const NcclEnvOverride* off = FindOverride(s, "NCCL_NVLS_ENABLE");
  if (off && off->value == "0") return {};
  std::vector<const NcclLineRef*> refs;
  for (const auto& n : s.notes)
    if (n.kind == "nvls_unavailable") refs.push_back(&n.ref);
  bool requested = false;
  if (const auto* algo = FindOverride(s, "NCCL_ALGO"))
    requested = algo->value.find("NVLS") != std::string::npos ||
                algo->value.find("nvls") != std::string::npos;
  bool zero_channels = false;
  for (const auto& c : s.communicators)
    if (c.nvls_channels == 0 && !c.channels_ref.line.empty()) {
      zero_channels = true;
      if (refs.size() < 4) refs.push_back(&c.channels_ref);
    }
  if (refs.empty() || (!zero_channels && refs.empty())) return {};
  Finding f = NewFinding("comm.nvls_unavailable");
  f.severity = Severity::kInfo;
  f.method_step = 4;
  f.title = requested ? "NVLS was requested (NCCL_ALGO) but is not available"
                      : "NVLink SHARP (NVLS) is not available";
  f.detail =
      "NCCL runs without NVLS multicast. That is normal on systems without NVSwitch "
      "(A100, PCIe, consumer GPUs). On NVSwitch H100/H200/B200 systems it means the "
      "multicast prerequisites are missing, and all_reduce loses about a quarter of its "
      "bandwidth.";
  f.fix =
      "On NVSwitch systems: run nvidia-fabricmanager, use a driver and CUDA >= 12.1 with "
      "multicast support, and do not set NCCL_NVLS_ENABLE=0; elsewhere nothing to do.";
  if (requested) {
    const auto* algo = FindOverride(s, "NCCL_ALGO");
    refs.push_back(&algo->ref);
  }
  AddEvidence(f, refs, 4);
  return {f};
}

}  // namespace commdx::analysis
