#include "diagnose/causes.h"

#include "analysis/catalogue.h"

namespace commdx::diagnose {

const std::vector<CauseRule>& CauseRules() {
  // The symptoms of a slow transport: communication shows up exposed in the trace, collectives
  // move fewer bytes per second than the link allows, and a benchmark confirms it.
  static const std::vector<CauseRule> kRules = {
      {"comm.socket_fallback",
       {"trace.exposed_comm", "trace.slow_collective_bw", "bench.low_busbw", "comm.shm_transport",
        "comm.p2p_disabled", "comm.few_channels", "comm.env_override"}},
      {"comm.p2p_disabled",
       {"trace.exposed_comm", "trace.slow_collective_bw", "bench.low_busbw", "comm.shm_transport",
        "comm.env_override"}},
      {"comm.few_channels",
       {"trace.exposed_comm", "trace.slow_collective_bw", "bench.low_busbw", "comm.env_override"}},
      {"comm.gdr_disabled", {"trace.slow_collective_bw", "bench.low_busbw", "trace.exposed_comm"}},
      {"comm.env_override", {"trace.slow_collective_bw", "bench.low_busbw", "trace.exposed_comm"}},
      {"comm.shm_too_small", {"comm.nccl_warn"}},
      {"topo.nvlink_degraded",
       {"trace.slow_collective_bw", "bench.low_busbw", "trace.exposed_comm"}},
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
      // Ranks taking turns on one GPU make every benchmark number a time slice.
      {"bench.shared_gpu", {"bench.low_busbw", "bench.high_latency", "bench.asymmetric_pair"}},
      {"trace.comm_serialized", {"trace.exposed_comm"}},
      // A timeout is where a hang shows; a rank that stopped first or ranks out of step are why.
      {"hang.desync", {"hang.watchdog_timeout", "hang.stuck_collective"}},
      {"hang.rank_behind", {"hang.watchdog_timeout", "hang.stuck_collective"}},
  };
  return kRules;
}

bool IsSymptom(std::string_view id) { return analysis::RoleOf(id) != analysis::Role::kCause; }

}  // namespace commdx::diagnose
