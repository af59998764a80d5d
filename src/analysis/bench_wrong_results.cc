// bench.wrong_results: a correctness check that failed (#wrong counts, the largest deviation
// older nccl-tests print, or its "Out of bounds values" total).
#include <cstdint>
#include <string>
#include <string_view>

#include "analysis/bench_analyzers.h"
#include "analysis/bench_summary.h"
#include "analysis/catalogue.h"
#include "base/str_format.h"

namespace commdx::analysis {

namespace {

// The largest deviation older nccl-tests accepted for a type (its DeltaMaxValue: float 1e-5,
// double 1e-12, integers none; half 1e-2 or 5e-2 depending on the version, so the larger);
// negative for a type it never checked this way.
double DeviationTolerance(std::string_view dtype) {
  if (dtype == "half" || dtype == "float16" || dtype == "bfloat16") return 5e-2;
  if (dtype == "float" || dtype == "float32") return 1e-5;
  if (dtype == "double" || dtype == "float64") return 1e-12;
  for (std::string_view t : {"int8", "uint8", "int32", "uint32", "int64", "uint64", "int", "char"})
    if (dtype == t) return 0;
  return -1;
}

bool OverTolerance(const BenchRow& row, const BenchPoint& p) {
  const double tol = DeviationTolerance(row.dtype);
  return p.valid && p.max_error >= 0 && tol >= 0 && p.max_error > tol;
}

// Wrong by either measure: a #wrong count, or an older "error" over the tolerance.
bool Wrong(const BenchRow& row, const BenchPoint& p) {
  return p.valid && (p.wrong > 0 || OverTolerance(row, p));
}

// Checked and right: #wrong 0, or an older "error" within the tolerance.
bool Right(const BenchRow& row, const BenchPoint& p) {
  return p.valid && (p.wrong == 0 || (p.max_error >= 0 && !OverTolerance(row, p)));
}

}  // namespace

std::vector<Finding> FindBenchWrongResults(const AnalysisInput& input, const Options&) {
  std::vector<Finding> out;
  const Job& job = input.job();
  for (size_t i = 0; i < job.bench.size(); ++i) {
    const BenchResult& r = job.bench[i];
    const BenchSummary& s = input.bench_summaries()[i];
    int64_t oob = r.reported_out_of_bounds.value_or(0);
    int deviated = 0;  // points whose older "error" column is over the type's tolerance
    for (const auto& row : r.rows)
      deviated += OverTolerance(row, row.out_of_place) + OverTolerance(row, row.in_place);
    if (s.wrong_total <= 0 && oob <= 0 && deviated == 0) continue;
    Finding f = NewFinding("bench.wrong_results");
    f.severity = Severity::kError;
    f.title = BenchLabel(r) + ": the collective produced wrong values";
    if (s.wrong_total > 0)
      f.detail = "After the timed runs a correctness run found " + std::to_string(s.wrong_total) +
                 " wrong elements" +
                 (oob > 0 ? " (nccl-tests: " + std::to_string(oob) + " out-of-bounds values)" : "");
    else if (deviated > 0)
      f.detail =
          "The correctness check found results off by more than the type allows at " +
          std::to_string(deviated) +
          " size(s) (the 'error' column of older nccl-tests: the largest deviation from "
          "the expected value)" +
          (oob > 0 ? "; nccl-tests counted " + std::to_string(oob) + " out-of-bounds values" : "");
    else
      f.detail = "nccl-tests counted " + std::to_string(oob) +
                 " out-of-bounds values (results that differ from the expected ones)";
    f.detail += ". Bandwidth numbers from a run that corrupts data mean nothing.";
    if (s.wrong_total > 0 || deviated == 0)
      f.metrics.push_back({"wrong_elements", static_cast<double>(s.wrong_total), Unit::kNone});
    if (deviated > 0)
      f.metrics.push_back({"results_over_tolerance", static_cast<double>(deviated), Unit::kNone});
    uint64_t smallest_wrong = 0;  // bytes of the smallest size with a wrong result
    for (const auto& row : r.rows)
      for (const BenchPoint* p : {&row.out_of_place, &row.in_place})
        if (Wrong(row, *p) && (smallest_wrong == 0 || row.bytes < smallest_wrong))
          smallest_wrong = row.bytes;
    bool smaller_checked = false;  // a size below the smallest wrong one that checked out
    for (const auto& row : r.rows)
      for (const BenchPoint* p : {&row.out_of_place, &row.in_place})
        smaller_checked = smaller_checked || (row.bytes < smallest_wrong && Right(row, *p));
    for (const auto& row : r.rows)
      for (const BenchPoint* p : {&row.out_of_place, &row.in_place})
        if (f.refs.size() < 8 && Wrong(row, *p))
          f.refs.push_back(BenchRowRef(
              r, row,
              (p->wrong > 0 ? std::to_string(p->wrong) + " wrong elements"
                            : StrFormat("largest deviation %g, over the %g %s allows", p->max_error,
                                        DeviationTolerance(row.dtype), row.dtype.c_str())) +
                  (p == &row.in_place ? " (in-place)" : "")));
    f.fix =
        "Rerun with NCCL_DEBUG=WARN; check GPU health (ECC errors, Xid messages in dmesg), "
        "driver and NCCL versions, and whether NCCL_PROTO/NCCL_ALGO overrides are set.";
    // Every wrong size at 2 GiB or more, the smaller ones right: a 32-bit byte count or offset
    // that overflows (NCCL and nccl-tests have each fixed such bugs), not failing hardware.
    if (smallest_wrong >= (uint64_t{1} << 31))
      f.fix = std::string("Only sizes of 2 GiB and above are wrong") +
              (smaller_checked ? " (the smaller ones check out)"
                               : " (no smaller size was checked: a sweep from 1 MiB up tells)") +
              ": the mark of a 32-bit size or offset overflow in NCCL or nccl-tests rather than "
              "failing hardware. Update both to current releases and rerun; until then keep single "
              "messages below 2 GiB. If it persists: " +
              f.fix;
    f.confidence = 0.95;
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace commdx::analysis
