#include <cstdio>

#include "analysis/bench_analyzers.h"
#include "analysis/bench_summary.h"
#include "analysis/catalogue.h"
#include "base/str_format.h"
#include "base/text.h"

namespace commdx::analysis {

namespace {
constexpr double kWarnEfficiency = 0.5;
constexpr double kErrorEfficiency = 0.35;
// A sweep that never got this large cannot show the plateau.
constexpr uint64_t kJudgeableBytes = 256ull << 20;

std::string Num(double v, int decimals) {
  std::string b = FormatFixed(v, decimals);
  return b;
}
}  // namespace

std::vector<Finding> FindBenchLowBusbw(const AnalysisInput& input, const Options&) {
  std::vector<Finding> out;
  const Job& job = input.job();
  for (size_t i = 0; i < job.bench.size(); ++i) {
    const BenchResult& r = job.bench[i];
    const BenchSummary& s = input.bench_summaries()[i];
    if (!s.has_data || !s.expected.known || s.efficiency >= kWarnEfficiency) continue;
    if (!s.saturated && r.rows.back().bytes < kJudgeableBytes) continue;
    Finding f = NewFinding("bench.low_busbw");
    f.severity = s.efficiency < kErrorEfficiency ? Severity::kError : Severity::kWarning;
    f.title = BenchLabel(r) + ": bus bandwidth " + Num(s.plateau_busbw_gbps, 1) + " GB/s is " +
              Num(100 * s.efficiency, 0) + "% of the link's " + Num(s.expected.line_rate_gbps, 0) +
              " GB/s";
    f.detail = "The plateau (large messages) reaches " + Num(s.plateau_busbw_gbps, 1) +
               " GB/s of bus bandwidth; the link is " + s.expected.basis +
               ". Healthy NCCL rings reach about 60-80% of the line rate on NVLink, so this is "
               "not a tuning gap: traffic is taking a slower path (host memory, sockets, PCIe) "
               "or far fewer channels than the link needs.";
    if (!s.saturated)
      f.detail +=
          " The sweep stopped while bandwidth was still rising, so the plateau may be "
          "somewhat higher.";
    f.metrics = {{"plateau_busbw", s.plateau_busbw_gbps, Unit::kGBps},
                 {"peak_busbw", s.peak_busbw_gbps, Unit::kGBps},
                 {"expected_line_rate", s.expected.line_rate_gbps, Unit::kGBps},
                 {"efficiency", 100 * s.efficiency, Unit::kPercent}};
    if (s.peak_row)
      f.refs.push_back(
          BenchRowRef(r, *s.peak_row, "peak busbw " + Num(s.peak_busbw_gbps, 2) + " GB/s"));
    f.fix =
        "Look at the transport NCCL chose (NCCL_DEBUG=INFO: 'via P2P' expected, 'via SHM' or "
        "'via NET/Socket' means a fallback); check NCCL_P2P_DISABLE, NCCL_SHM_DISABLE, "
        "NCCL_P2P_LEVEL, NCCL_MAX_NCHANNELS / NCCL_MIN_NCHANNELS in the environment; run "
        "`commdx topo` for inactive NVLinks or P2P blocked by the platform (ACS, "
        "virtualisation).";
    f.confidence = s.expected.confidence;
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace commdx::analysis
