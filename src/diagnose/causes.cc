#include "diagnose/causes.h"

#include <algorithm>
#include <iterator>

#include "analysis/catalogue.h"

namespace commdx::diagnose {

const std::vector<CauseRule>& CauseRules() {
  // The symptoms of a slow transport: communication shows up exposed in the trace, collectives
  // move fewer bytes per second than the link allows, and a benchmark confirms it.
  // Sockets do not explain comm.few_channels: the few channels NCCL opens over sockets by design
  // are an info note, and a channel cap the user set is a limit of its own on that transport.
  static const std::vector<CauseRule> kRules = {
      {"comm.socket_fallback",
       {"trace.exposed_comm", "trace.slow_collective_bw", "bench.low_busbw", "comm.shm_transport",
        "comm.p2p_disabled", "comm.env_override"}},
      {"comm.p2p_disabled",
       {"trace.exposed_comm", "trace.slow_collective_bw", "bench.low_busbw", "comm.shm_transport",
        "comm.env_override"}},
      {"comm.few_channels",
       {"trace.exposed_comm", "trace.slow_collective_bw", "bench.low_busbw", "comm.env_override"}},
      {"comm.gdr_disabled", {"trace.slow_collective_bw", "bench.low_busbw", "trace.exposed_comm"}},
      {"comm.env_override", {"trace.slow_collective_bw", "bench.low_busbw", "trace.exposed_comm"}},
      {"topo.nvlink_degraded",
       {"trace.slow_collective_bw", "bench.low_busbw", "trace.exposed_comm"}},
      {"topo.numa_split", {"trace.slow_collective_bw", "bench.low_busbw"}},
      {"topo.pcie_only", {"trace.slow_collective_bw", "bench.low_busbw"}},
      {"topo.pcie_downtrained", {"trace.slow_collective_bw", "bench.low_busbw"}},
      {"topo.acs_enabled", {"trace.slow_collective_bw", "bench.low_busbw", "comm.p2p_disabled"}},
      {"trace.small_collectives", {"trace.exposed_comm", "trace.slow_collective_bw"}},
      // A late rank is late for a reason on that rank: a data stall or a sync there explains the
      // others' wait only when it costs at least as much as the wait (sizes, not a rule).
      {"trace.data_stall", {}, true, {"trace.launch_bound", "trace.arrival_skew"}},
      {"trace.host_sync",
       {},
       true,
       {"trace.launch_bound", "trace.data_stall", "trace.arrival_skew"}},
      {"env.omp_oversubscribed", {"trace.launch_bound"}},
      // A rank whose GPU waits for its own CPU arrives late at collectives: the others' wait is
      // its launch-bound step seen from outside (a symptom explaining a symptom).
      {"trace.launch_bound", {}, true, {"trace.arrival_skew"}},
      // The same for a rank whose GPU waits with its work queued, and for one whose GPU another
      // process holds up: the others wait for it at collectives.
      {"trace.queued_idle", {}, true, {"trace.arrival_skew"}},
      {"trace.shared_gpu", {}, true, {"trace.arrival_skew", "trace.exposed_comm"}},
      // Ranks taking turns on one GPU make every benchmark number a time slice.
      {"bench.shared_gpu", {"bench.low_busbw", "bench.high_latency", "bench.asymmetric_pair"}},
      {"trace.comm_serialized", {"trace.exposed_comm"}},
      // A timeout is where a hang shows; a rank that stopped first or ranks out of step are why.
      {"hang.desync", {"hang.watchdog_timeout", "hang.stuck_collective"}},
      {"hang.rank_behind", {"hang.watchdog_timeout", "hang.stuck_collective"}},
      // RAS saw every rank launch it: why the timeout happened is narrowed to the GPU or transfer.
      {"ras.consistent_hang", {"hang.watchdog_timeout"}},
      // A process that hit an error of its own takes its peers down: their "remote exited" /
      // "connection closed" errors and the watchdog timeouts that follow are fallout, whatever
      // order the lines or files come in; so is nccl-tests' "Test NCCL failure" after it.
      {"comm.cuda_error", {"comm.remote_exited", "hang.watchdog_timeout", "bench.test_failed"}},
      {"comm.ib_error", {"comm.remote_exited", "hang.watchdog_timeout", "bench.test_failed"}},
      {"comm.nvls_failure", {"comm.remote_exited", "hang.watchdog_timeout", "bench.test_failed"}},
      {"comm.unsupported_gpu",
       {"comm.remote_exited", "hang.watchdog_timeout", "bench.test_failed"}},
      {"comm.topology_error", {"comm.remote_exited", "hang.watchdog_timeout", "bench.test_failed"}},
      {"comm.shm_too_small",
       {"comm.nccl_warn", "comm.remote_exited", "hang.watchdog_timeout", "bench.test_failed"}},
      {"comm.duplicate_gpu", {"comm.remote_exited", "hang.watchdog_timeout", "bench.test_failed"}},
      {"comm.bootstrap_failure",
       {"comm.remote_exited", "hang.watchdog_timeout", "bench.test_failed"}},
  };
  return kRules;
}

bool IsSymptom(std::string_view id) { return analysis::RoleOf(id) != analysis::Role::kCause; }

bool IsUserLimit(const Finding& f) {
  if (f.id != "comm.few_channels") return false;
  return std::any_of(f.metrics.begin(), f.metrics.end(),
                     [](const Metric& m) { return m.name == "capped_at"; });
}

bool IsFailure(std::string_view id) {
  static constexpr std::string_view kFailures[] = {
      "comm.bootstrap_failure", "comm.cuda_error",     "comm.ib_error",      "comm.nvls_failure",
      "comm.unsupported_gpu",   "comm.topology_error", "comm.shm_too_small", "comm.duplicate_gpu",
      "comm.remote_exited",     "bench.test_failed"};
  if (id.substr(0, 5) == "hang.") return true;
  return std::find(std::begin(kFailures), std::end(kFailures), id) != std::end(kFailures);
}

}  // namespace commdx::diagnose
