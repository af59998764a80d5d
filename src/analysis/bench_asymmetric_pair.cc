#include <algorithm>
#include <cstdio>

#include "analysis/bench_analyzers.h"
#include "analysis/catalogue.h"
#include "base/str_format.h"

namespace commdx::analysis {

namespace {
constexpr double kSlowShare = 0.8;  // a pair below 80% of the best comparable pair
}  // namespace

std::vector<Finding> FindBenchAsymmetricPair(const Job& job, const Options&) {
  std::vector<Finding> out;
  for (const auto& r : job.bench) {
    for (const char* method : {"ce", "sm"})
      for (bool bi : {false, true}) {
        double best = 0;
        const P2pResult* best_pair = nullptr;
        for (const auto& p : r.p2p)
          if (p.method == method && p.bidirectional == bi && p.waived.empty() &&
              p.bandwidth_gbps > best) {
            best = p.bandwidth_gbps;
            best_pair = &p;
          }
        if (!best_pair) continue;
        for (const auto& p : r.p2p) {
          if (p.method != method || p.bidirectional != bi || !p.waived.empty()) continue;
          if (p.bandwidth_gbps >= kSlowShare * best) continue;
          std::string title = StrFormat(
              "GPU %d -> GPU %d copies at %.1f GB/s, %.0f%% of the best pair (%d -> %d, %.1f GB/s)",
              p.src, p.dst, p.bandwidth_gbps, 100 * p.bandwidth_gbps / best, best_pair->src,
              best_pair->dst, best);
          Finding f = NewFinding("bench.asymmetric_pair");
          f.severity = Severity::kWarning;
          f.title = title;
          f.detail = std::string("Measured with ") +
                     (std::string(method) == "ce" ? "the copy engine (cudaMemcpyPeerAsync)"
                                                  : "an SM copy kernel") +
                     (bi ? ", both directions at once" : ", one direction") +
                     ". A pair slower than its peers has fewer working NVLinks, a downtrained "
                     "PCIe link, or a path through the CPU; collectives run at the pace of "
                     "their slowest link.";
          f.metrics = {{"bandwidth", p.bandwidth_gbps, Unit::kGBps},
                       {"best_pair_bandwidth", best, Unit::kGBps},
                       {"share", 100 * p.bandwidth_gbps / best, Unit::kPercent}};
          EvidenceRef ref;
          ref.where.file = "commdx bench p2p";
          ref.text = std::string(method) + (bi ? " bidirectional " : " ") + std::to_string(p.src) +
                     "->" + std::to_string(p.dst);
          f.refs.push_back(ref);
          f.rank = p.src;
          f.fix =
              "Run `commdx topo` (inactive NVLinks, PCIe generation/width, ACS) and "
              "`nvidia-smi nvlink -s` on both GPUs; reseat or service the link if a "
              "link is down.";
          f.confidence = 0.8;
          out.push_back(std::move(f));
        }
      }
  }
  return out;
}

}  // namespace commdx::analysis
