#include <cstdio>
#include <string>

#include "analysis/bench_analyzers.h"
#include "analysis/bench_summary.h"
#include "analysis/catalogue.h"
#include "base/str_format.h"

namespace commdx::analysis {

namespace {
// Intra-node NCCL latency floors are about 6-13 us (docs/bench-method.md); twice the top of that is
// a problem. Across nodes network round trips add tens of microseconds.
constexpr double kMaxFloorUsOneNode = 25;
constexpr double kMaxFloorUsMultiNode = 60;
}  // namespace

std::vector<Finding> FindBenchHighLatency(const AnalysisInput& input, const Options&) {
  std::vector<Finding> out;
  const Job& job = input.job();
  for (size_t i = 0; i < job.bench.size(); ++i) {
    const BenchResult& r = job.bench[i];
    const BenchSummary& s = input.bench_summaries()[i];
    if (!s.has_data || !s.latency_row || s.latency_bytes > 64 * 1024) continue;
    // An excerpt without its "Rank N ... on HOST" lines does not say how many nodes ran: a
    // network round trip may be in every time, so only the across-nodes bound is safe.
    const bool nodes_known = r.topology.nodes > 0;
    double limit = r.topology.nodes == 1 ? kMaxFloorUsOneNode : kMaxFloorUsMultiNode;
    if (s.latency_floor_us <= limit) continue;
    std::string buf = StrFormat("%s: small-message latency %.1f us (expected under %.0f us%s)",
                                BenchLabel(r).c_str(), s.latency_floor_us, limit,
                                nodes_known ? "" : "; how many nodes ran is not in the file");
    Finding f = NewFinding("bench.high_latency");
    f.severity = Severity::kWarning;
    f.title = buf;
    // nccl-tests -g N: one thread launches every GPU's kernel in turn and waits for all, so the
    // floor holds N serial launches: not the latency one process per GPU (as training runs) sees.
    const bool serial_launch = r.gpus_per_thread > 1;
    if (serial_launch) {
      f.severity = Severity::kInfo;
      f.title += "; one thread drives " + std::to_string(r.gpus_per_thread) + " GPUs";
    }
    f.detail =
        "Even the smallest messages take this long, so every small collective (and each "
        "DDP bucket's launch) pays it. ";
    if (r.topology.nodes == 1)
      f.detail +=
          "On one node NCCL normally needs 6-13 us; this points at a slow transport (sockets, "
          "host memory), a busy or far-away CPU driving the GPU, or launch overhead.";
    else
      f.detail +=
          std::string(r.topology.nodes > 1 ? "The ranks span " +
                                                 std::to_string(r.topology.nodes) + " nodes. "
                                           : "") +
          "Across nodes an RDMA fabric (InfiniBand, RoCE, EFA) adds tens of microseconds; far "
          "more points at a TCP transport (NET/Socket, or a TCP-based GPUDirect fabric, "
          "whose floor is higher), many ranks in a ring, a busy or far-away CPU driving the "
          "GPU, or launch overhead. Check the transport NCCL chose before tuning.";
    f.metrics = {{"latency_floor", s.latency_floor_us * 1e3, Unit::kNs},
                 {"at_size", static_cast<double>(s.latency_bytes), Unit::kBytes},
                 {"limit", limit * 1e3, Unit::kNs}};
    if (s.fit_ok) f.metrics.push_back({"alpha", s.alpha_us * 1e3, Unit::kNs});
    std::string what = StrFormat("time %.2f us", s.latency_floor_us);
    f.refs.push_back(BenchRowRef(r, *s.latency_row, what));
    f.fix =
        "Check the transport (NCCL_DEBUG=INFO), pin each rank to cores near its GPU "
        "(`commdx topo`), and fuse small tensors into larger buckets.";
    f.confidence = nodes_known ? 0.8 : 0.6;
    if (serial_launch) {
      f.detail += " Here one thread drove " + std::to_string(r.gpus_per_thread) +
                  " GPUs (nccl-tests nGpus " + std::to_string(r.gpus_per_thread) +
                  "): it launches each GPU's kernel in turn, so the floor includes those serial "
                  "launches, which a job of one process per GPU does not pay.";
      f.fix = "Measure the latency as training runs it, one process per GPU (mpirun -np " +
              std::to_string(r.gpus_per_thread) + " ... -g 1, or `commdx bench`), before "
              "tuning; then: " + f.fix;
      f.confidence = 0.5;
    }
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace commdx::analysis
