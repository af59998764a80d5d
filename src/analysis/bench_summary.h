// What a size sweep says, in a few numbers: the plateau bus bandwidth (the median of the
// points within 5% of the peak — not nccl-tests' "Avg bus bandwidth", which averages every
// size including the latency-bound ones), the latency floor, an alpha-beta fit, and the
// efficiency against the expected line rate. Pure function of one BenchResult.
#pragma once

#include <cstdint>
#include <string>

#include "analysis/bench_expected.h"
#include "model/bench_result.h"

namespace commdx::analysis {

struct BenchSummary {
  bool has_data = false;
  bool in_place = false;  // numbers from the in-place column (out-of-place was not run)
  double peak_busbw_gbps = 0;
  uint64_t peak_bytes = 0;
  const BenchRow* peak_row = nullptr;
  double plateau_busbw_gbps = 0;
  uint64_t plateau_from_bytes = 0;  // smallest size in the plateau
  int plateau_points = 0;
  bool saturated = false;       // the largest sizes sit on the plateau
  // The largest sizes (the last two, both past the peak) move less than kDropBand of the peak:
  // busbw fell after its peak instead of levelling off. tail_*: the largest size's point.
  bool dropped = false;
  double tail_busbw_gbps = 0;
  uint64_t tail_bytes = 0;
  const BenchRow* first_dropped_row = nullptr;  // the first size past the peak below the band
  double latency_floor_us = 0;  // smallest time among sizes <= 64 KiB (none: latency_row null)
  uint64_t latency_bytes = 0;
  const BenchRow* latency_row = nullptr;
  // fit_ok: the fit exists and describes the sweep. One that does not (kFitBetaOverPeak) keeps
  // its numbers but not fit_ok; fit_rejected says why. alpha is an extrapolation, not shown,
  // where the sweep has no latency-bound size (latency_row null).
  bool fit_ok = false;
  double alpha_us = 0;         // t(bytes) = alpha + bytes / beta (relative least squares)
  double beta_busbw_gbps = 0;  // beta in bus-bandwidth terms
  std::string fit_rejected;    // "" unless a fit was computed and is not to be shown
  int64_t wrong_total = 0;     // wrong elements over all checked points
  ExpectedLink expected;
  double efficiency = 0;  // plateau / expected line rate (0 when unknown)
};

// Points within this fraction of the peak belong to the plateau.
inline constexpr double kPlateauBand = 0.95;
// The largest sizes below this fraction of the peak: bandwidth dropped.
inline constexpr double kDropBand = 0.5;
// A fit's beta above the measured peak busbw by more than this factor does not describe the sweep
// (t = alpha + bytes/beta puts every point below beta, the large sizes close to it; the reference
// H200 sweeps give 0.85-0.99).
inline constexpr double kFitBetaOverPeak = 1.1;

BenchSummary SummarizeBench(const BenchResult& result);

}  // namespace commdx::analysis
