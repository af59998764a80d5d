// bench.busbw_drop: a sweep whose bus bandwidth falls after its peak instead of levelling off
// (bench_summary.h: the two largest sizes, both past the peak, under half of it). A sweep
// levels off at the link's rate; a fall past some size is a change of path or of NCCL's choice
// at that size, which no plateau-based check sees: the plateau is the peak's. docs/findings/bench.md.
#include "analysis/bench_analyzers.h"
#include "analysis/bench_summary.h"
#include "analysis/catalogue.h"
#include "base/str_format.h"
#include "base/text.h"

namespace commdx::analysis {

std::vector<Finding> FindBenchBusbwDrop(const AnalysisInput& input, const Options&) {
  std::vector<Finding> out;
  const Job& job = input.job();
  for (size_t i = 0; i < job.bench.size(); ++i) {
    const BenchResult& r = job.bench[i];
    const BenchSummary& s = input.bench_summaries()[i];
    if (!s.has_data || !s.dropped || !s.peak_row || !s.first_dropped_row) continue;
    Finding f = NewFinding("bench.busbw_drop");
    const double peak_bytes = static_cast<double>(s.peak_bytes);
    const double from_bytes = static_cast<double>(s.first_dropped_row->bytes);
    f.title = BenchLabel(r) + ": bus bandwidth falls from " + FormatFixed(s.peak_busbw_gbps, 1) +
              " GB/s at " + FormatBytes(peak_bytes) + " to " + FormatFixed(s.tail_busbw_gbps, 1) +
              " GB/s at " + FormatBytes(static_cast<double>(s.tail_bytes)) + " (below half from " +
              FormatBytes(from_bytes) + ")";
    f.detail =
        "Larger messages should move at least as fast as smaller ones: a sweep levels off at "
        "the link's rate. Here every size from " +
        FormatBytes(from_bytes) +
        " up runs at under half the peak. NCCL picks its algorithm, protocol and channel count "
        "per size, so a fall at one size is often that choice (or a tuner plugin, "
        "NCCL_ALGO/NCCL_PROTO) going wrong; a fall that starts where buffers outgrow a resource "
        "points at the platform: IOMMU or registration of large buffers, a PCIe switch or NIC "
        "congested by long transfers, memory pressure on the GPU.";
    f.fix =
        "Rerun the sizes around " + FormatBytes(from_bytes) +
        " with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING to see the algorithm and protocol "
        "per size; try NCCL_ALGO=Ring and NCCL_PROTO=Simple at those sizes; check `commdx topo` "
        "(ACS, IOMMU) and the NICs' error and retransmit counters.";
    f.metrics = {{"peak_busbw", s.peak_busbw_gbps, Unit::kGBps},
                 {"largest_size_busbw", s.tail_busbw_gbps, Unit::kGBps},
                 {"drop_from", from_bytes, Unit::kBytes}};
    f.refs.push_back(
        BenchRowRef(r, *s.peak_row, "peak busbw " + FormatFixed(s.peak_busbw_gbps, 2) + " GB/s"));
    f.refs.push_back(BenchRowRef(r, *s.first_dropped_row, "first size under half the peak"));
    f.confidence = 0.7;
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace commdx::analysis
