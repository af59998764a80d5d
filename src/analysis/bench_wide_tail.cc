// bench.wide_tail: at a fixed size every iteration moves the same bytes over the same path, so a
// 99th percentile far above the mean is the link or a node being disturbed (another job's
// traffic, a flapping port, a throttling GPU), not the message. Read from nccl-tests' -I 1
// per-iteration timing (BenchPoint::p99_us). Raised for sizes of 1 MiB or more whose p99 is at
// least 3x the mean and at least 100 us above it: below that, host launch jitter of a few
// microseconds makes small-message tails look wide (seen on one H200: p99 up to 14x the mean at
// 32 MiB in place, 24 us above it). The size with the widest tail is named.
#include "analysis/bench_wide_tail.h"

#include "analysis/bench_analyzers.h"
#include "analysis/catalogue.h"
#include "base/str_format.h"

namespace commdx::analysis {

namespace {

constexpr uint64_t kMinBytes = 1 << 20;
constexpr double kMinRatio = 3;
constexpr double kMinExcessUs = 100;

}  // namespace

std::vector<Finding> FindBenchWideTail(const Job& job, const Options&) {
  std::vector<Finding> out;
  for (const BenchResult& r : job.bench) {
    const BenchRow* worst_row = nullptr;
    const BenchPoint* worst = nullptr;
    size_t wide = 0;
    for (const BenchRow& row : r.rows) {
      if (row.bytes < kMinBytes) continue;
      for (const BenchPoint* p : {&row.out_of_place, &row.in_place}) {
        if (!p->valid || p->p99_us <= 0 || p->time_us <= 0) continue;
        if (p->p99_us < kMinRatio * p->time_us || p->p99_us - p->time_us < kMinExcessUs) continue;
        ++wide;
        if (!worst || p->p99_us / p->time_us > worst->p99_us / worst->time_us)
          worst = p, worst_row = &row;
      }
    }
    if (!worst) continue;
    Finding f = NewFinding("bench.wide_tail");
    f.title = StrFormat(
        "%s: at %llu bytes one iteration in a hundred takes %.0f us, %.1fx the "
        "mean of %.0f us",
        BenchLabel(r).c_str(), static_cast<unsigned long long>(worst_row->bytes), worst->p99_us,
        worst->p99_us / worst->time_us, worst->time_us);
    f.detail = StrFormat(
        "nccl-tests timed every iteration (-I 1). At a fixed size each iteration moves the same "
        "bytes over the same path, so a tail this wide is the path being disturbed, not the "
        "message: %zu size(s) of 1 MiB or more have a 99th percentile at least 3x the mean and "
        "100 us above it.",
        wide);
    f.fix =
        "Rerun on the same nodes and on others to tell a node from the fabric; look for other "
        "jobs' traffic on the links, port error counters (ibstatus, perfquery) and GPU "
        "throttling (nvidia-smi -q -d PERFORMANCE).";
    f.metrics.push_back({"p99", worst->p99_us * 1e3, Unit::kNs});
    f.metrics.push_back({"mean", worst->time_us * 1e3, Unit::kNs});
    f.metrics.push_back({"bytes", static_cast<double>(worst_row->bytes), Unit::kBytes});
    f.refs.push_back(BenchRowRef(r, *worst_row, "widest tail"));
    f.confidence = 0.6;
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace commdx::analysis
