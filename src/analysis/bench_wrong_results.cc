#include "analysis/bench_analyzers.h"
#include "analysis/bench_summary.h"
#include "analysis/catalogue.h"

namespace commdx::analysis {

std::vector<Finding> FindBenchWrongResults(const AnalysisInput& input, const Options&) {
  std::vector<Finding> out;
  const Job& job = input.job();
  for (size_t i = 0; i < job.bench.size(); ++i) {
    const BenchResult& r = job.bench[i];
    const BenchSummary& s = input.bench_summaries()[i];
    int64_t oob = r.reported_out_of_bounds.value_or(0);
    if (s.wrong_total <= 0 && oob <= 0) continue;
    Finding f = NewFinding("bench.wrong_results");
    f.severity = Severity::kError;
    f.title = BenchLabel(r) + ": the collective produced wrong values";
    f.detail = "After the timed runs a correctness run found " + std::to_string(s.wrong_total) +
               " wrong elements" +
               (oob > 0 ? " (nccl-tests: " + std::to_string(oob) + " out-of-bounds values)" : "") +
               ". Bandwidth numbers from a run that corrupts data mean nothing.";
    f.metrics = {{"wrong_elements", static_cast<double>(s.wrong_total), Unit::kNone}};
    for (const auto& row : r.rows)
      for (const BenchPoint* p : {&row.out_of_place, &row.in_place})
        if (p->valid && p->wrong > 0 && f.refs.size() < 8)
          f.refs.push_back(BenchRowRef(r, row,
                                       std::to_string(p->wrong) + " wrong elements" +
                                           (p == &row.in_place ? " (in-place)" : "")));
    f.fix =
        "Rerun with NCCL_DEBUG=WARN; check GPU health (ECC errors, Xid messages in dmesg), "
        "driver and NCCL versions, and whether NCCL_PROTO/NCCL_ALGO overrides are set.";
    f.confidence = 0.95;
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace commdx::analysis
