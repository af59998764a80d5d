// bench.test_failed: nccl-tests printed "Test NCCL failure" / "Test CUDA failure" and stopped.
// bench.no_results: it printed its header and no size, and no failure: it hung (or was stopped)
// in its first collective.
#include <set>
#include <string>
#include <string_view>

#include "analysis/bench_analyzers.h"
#include "analysis/catalogue.h"
#include "base/text.h"

namespace commdx::analysis {

namespace {

// What the error text says to do. The texts are ncclGetErrorString's and cudaGetErrorString's.
std::string FixFor(std::string_view message, const BenchResult& r) {
  const std::string m = ToLower(message);
  // NCCL 1.x (single process, no network) was replaced by NCCL 2 in 2017: nccl-tests of today
  // and any GPU or driver of today expect NCCL 2.
  if (StartsWith(r.nccl_version, "1."))
    return "nccl-tests was compiled with NCCL " + r.nccl_version +
           ", the obsolete NCCL 1 library: install NCCL 2 and rebuild nccl-tests against it "
           "(make NCCL_HOME=...), then rerun.";
  // Before NCCL 2.28 a bootstrap that finds no interface matching NCCL_SOCKET_IFNAME (or none
  // usable) returns an internal error ("Bootstrap : no socket interface found"); from 2.28 on,
  // invalid usage.
  if (r.rows.empty() && r.topology.nodes > 1 &&
      (Contains(m, "internal error") || Contains(m, "invalid usage")))
    return "A failure before the first size on a run across " + std::to_string(r.topology.nodes) +
           " hosts is most often NCCL's bootstrap finding no usable network interface on one of "
           "them (NCCL_DEBUG=WARN shows 'Bootstrap : no socket interface found'): "
           "NCCL_SOCKET_IFNAME must match an interface on every host, so where the names "
           "differ list each (NCCL_SOCKET_IFNAME=enp6s0,enp4s0) or give a common prefix; rerun "
           "with NCCL_DEBUG=INFO to confirm (commdx diagnose reads the log with this output).";
  if (Contains(m, "driver version is insufficient"))
    return "The NVIDIA driver is older than the CUDA runtime nccl-tests (or NCCL) was built "
           "with: install a driver that supports that CUDA version (nvidia-smi's header shows the "
           "newest CUDA version the driver supports), or build nccl-tests with a CUDA toolkit "
           "the driver supports.";
  if (Contains(m, "system not yet initialized") || Contains(m, "system not yet ready"))
    return "CUDA says the system is not yet initialized (cudaErrorSystemNotReady): on an "
           "NVSwitch machine (HGX/DGX) the Fabric Manager is not running or has not yet joined "
           "the GPUs to the NVLink fabric. Start nvidia-fabricmanager (its version must match the "
           "driver's), wait until `nvidia-smi -q` shows the fabric state Completed, and rerun.";
  if (Contains(m, "out of memory"))
    return "The GPU ran out of memory: lower the largest size (-e / maxBytes), or stop what else "
           "holds memory on the GPU.";
  if (Contains(m, "unhandled cuda error")) {
    std::string fix =
        "A CUDA call inside NCCL failed; rerun with NCCL_DEBUG=WARN (or INFO) to see which call "
        "and which CUDA error.";
    if (!r.rows.empty())
      fix += " It came after " + FormatBytes(static_cast<double>(r.rows.back().bytes)) +
             " completed: at the largest sizes that is most often GPU memory (cudaMalloc of the "
             "next size's buffers), so lower -e (maxBytes) first.";
    return fix;
  }
  if (Contains(m, "unhandled system error"))
    return "A system call or the network failed (sockets, InfiniBand verbs, shared memory): "
           "rerun with NCCL_DEBUG=INFO and read the WARN lines before the failure (commdx "
           "diagnose reads them).";
  if (Contains(m, "remote process exited") || Contains(m, "network error"))
    return "A peer process exited or the connection to it broke: look at the other hosts' "
           "output for the first error, and at the network between them.";
  if (Contains(m, "invalid usage") || Contains(m, "invalid argument"))
    return "NCCL was called in a way it refuses: the ranks disagree on sizes or settings, or an "
           "NCCL_* variable has a value this NCCL does not take. NCCL_DEBUG=WARN names it.";
  return "Rerun with NCCL_DEBUG=INFO: NCCL's WARN lines before the failure say what failed "
         "(commdx diagnose reads them with the output).";
}

}  // namespace

std::vector<Finding> FindBenchTestFailed(const AnalysisInput& input, const Options&) {
  std::vector<Finding> out;
  for (const BenchResult& r : input.job().bench) {
    if (r.failures.empty()) continue;
    const BenchFailure& first = r.failures.front();
    std::set<std::string> hosts;
    for (const BenchFailure& f : r.failures)
      if (!f.host.empty()) hosts.insert(f.host);
    Finding f = NewFinding("bench.test_failed");
    f.severity = Severity::kError;
    const std::string what =
        first.message.empty() ? std::string("a failure") : "'" + first.message + "'";
    f.title = "nccl-tests " + (r.case_key == "unknown" ? "" : r.case_key + " ") + "failed: " + what;
    if (r.failures.size() > 1)
      f.title += " (" + std::to_string(r.failures.size()) + " processes" +
                 (hosts.size() > 1 ? " on " + std::to_string(hosts.size()) + " hosts" : "") + ")";
    f.detail = "nccl-tests stopped on " +
               (first.library.empty() ? "an error" : "an error of a " + first.library + " call") +
               (r.rows.empty()
                    ? " before any size completed"
                    : " after " + std::to_string(r.rows.size()) + " sizes completed, the largest " +
                          FormatBytes(static_cast<double>(r.rows.back().bytes))) +
               ". The numbers of a failed run stop where it failed; sizes past it were not "
               "measured.";
    for (const BenchFailure& b : r.failures) {
      if (f.refs.size() >= 8) break;
      EvidenceRef ref;
      ref.where = b.loc;
      ref.text = (b.host.empty() ? "" : b.host + ": ") + "Test " +
                 (b.library.empty() ? "" : b.library + " ") + "failure" +
                 (b.message.empty() ? "" : " '" + b.message + "'");
      f.refs.push_back(std::move(ref));
    }
    f.metrics = {{"failures", static_cast<double>(r.failures.size()), Unit::kNone},
                 {"sizes_completed", static_cast<double>(r.rows.size()), Unit::kNone}};
    f.fix = FixFor(first.message, r);
    f.confidence = first.message.empty() ? 0.7 : 0.9;
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<Finding> FindBenchNoResults(const AnalysisInput& input, const Options&) {
  std::vector<Finding> out;
  for (const BenchResult& r : input.job().bench) {
    // A summary line closes a run that completed (an excerpt may keep only the summaries).
    if (r.source != BenchSource::kNcclTests || !r.rows.empty() || !r.failures.empty() ||
        r.summaries > 0 || r.header_cut)
      continue;
    Finding f = NewFinding("bench.no_results");
    f.severity = Severity::kError;
    const std::string test = r.case_key == "unknown" ? "nccl-tests" : "nccl-tests " + r.case_key;
    f.title = test + " printed no result: it hung, or was stopped, before its first size";
    f.detail =
        "The output has the test's header" +
        std::string(r.nranks > 0 ? " (" + std::to_string(r.nranks) + " ranks" +
                                       (r.topology.nodes > 0
                                            ? " on " + std::to_string(r.topology.nodes) +
                                                  (r.topology.nodes == 1 ? " host" : " hosts")
                                            : "") +
                                       ")"
                                 : "") +
        " and no result row and no failure: its first size never completed (NCCL's setup or "
        "the first collective hung; an NCCL log with INIT lines tells which).";
    if (r.topology.nodes == 1) {
      f.detail +=
          " Every rank is on one host: a hang between the GPUs of one host, at connection setup "
          "or the first transfer, is most often peer-to-peer traffic the PCIe fabric does not "
          "deliver — "
          "PCI ACS redirecting it to the root complex, or an IOMMU (virtual machines, "
          "intel_iommu=on).";
      f.fix =
          "Rerun with NCCL_P2P_DISABLE=1: if it then completes, peer-to-peer is what hangs; turn "
          "PCI ACS off on the PCIe switches and root ports (setpci, or the BIOS), or set the IOMMU "
          "to passthrough (iommu=pt), as NCCL's troubleshooting guide describes. `commdx topo` "
          "on the node shows the GPUs' paths.";
    } else {
      f.detail +=
          " Across hosts that is most often the network: a firewall between the nodes, an "
          "interface the peers cannot reach (NCCL_SOCKET_IFNAME), or RDMA that connects but "
          "does not deliver; on one host, peer-to-peer blocked by PCI ACS or an IOMMU.";
      f.fix =
          "Rerun with NCCL_DEBUG=INFO and NCCL_DEBUG_SUBSYS=INIT,NET,P2P (commdx diagnose reads "
          "the log with this output); try NCCL_P2P_DISABLE=1 within a node and "
          "NCCL_IB_DISABLE=1 across nodes to find the transport that hangs.";
    }
    EvidenceRef ref;
    ref.where = SourceLoc{r.file};
    ref.text = test + ": header, no result row";
    f.refs.push_back(std::move(ref));
    f.metrics = {{"sizes_completed", 0, Unit::kNone}};
    f.confidence = r.topology.nodes == 1 ? 0.7 : 0.6;
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace commdx::analysis
