#include "bench/coll_runner.h"

#include <algorithm>
#include <chrono>

#include "base/text.h"
#include "bench/measure.h"
#include "bench/stats.h"

namespace commdx::bench {

namespace {

// Largest share of the smallest GPU's memory the default sweep may take.
constexpr double kDefaultMemShare = 0.4;

// The first point of a sweep is the communicators' first use after init: on 2xH200 its
// iterations stayed slow after one warm-up (docs/measurements/bench-h200x2.md).
constexpr int kFirstPointWarmup = 20;

struct Placement {
  bool in_place;
  BenchPoint BenchRow::*field;
};

}  // namespace

Result<BenchPoint> MeasureCollPoint(Backend& b, Watchdog* wd, const CollSpec& spec, uint64_t seed,
                                    const RunOptions& o, bool first_point) {
  bool graph = o.graph_iters > 0;
  std::string what = spec.Describe();
  COMMDX_TRY(b.Prepare(spec, seed));
  if (wd) wd->Arm(what + " (warm-up)");
  // Plain launches first (NCCL connects lazily, and not inside a graph capture), then one
  // replay of the captured graph.
  int warmup = std::max(first_point ? kFirstPointWarmup : 1, o.warmup);
  if (b.Info().max_batch > 0) warmup = std::min(warmup, b.Info().max_batch);
  COMMDX_TRY(b.Time(spec, warmup, false));
  if (graph) COMMDX_TRY(b.Time(spec, o.graph_iters, true));
  if (wd) wd->Arm(what);
  COMMDX_ASSIGN_OR_RETURN(TimeMatrix times,
                          MeasureAdaptive([&](int n) { return b.Time(spec, n, graph); }, o,
                                          o.graph_iters, b.Info().max_batch));
  SampleSummary s = Summarize(times);
  BenchPoint p;
  p.valid = true;
  p.time_us = s.median_ns / 1e3;
  p.p10_us = s.p10_ns / 1e3;
  p.p90_us = s.p90_ns / 1e3;
  p.iterations = s.samples;
  p.slowest_rank = s.slowest_rank;
  if (s.median_ns > 0) {
    p.algbw_gbps = static_cast<double>(spec.SizeBytes()) / s.median_ns;  // B/ns = GB/s
    p.busbw_gbps = p.algbw_gbps * BusBwFactor(spec.kind, spec.nranks);
  }
  if (o.check && (!spec.in_place || InPlaceCheckable(spec.kind))) {
    if (wd) wd->Arm(what + " (correctness run)");
    COMMDX_TRY(b.Prepare(spec, seed + 1000003));
    COMMDX_TRY(b.Time(spec, 1, false));
    COMMDX_ASSIGN_OR_RETURN(auto wrong, b.Check(spec, seed + 1000003));
    p.wrong = 0;
    for (int64_t w : wrong)
      if (w > 0) p.wrong += w;
  }
  return p;
}

BenchResult NewLiveResult(const Backend& backend, const std::string& case_key) {
  const BackendInfo& info = backend.Info();
  BenchResult r;
  r.case_key = case_key;
  r.source = BenchSource::kCommdx;
  r.tool_version = COMMDX_VERSION;
  r.nccl_version = info.nccl_version;
  r.nccl_library = info.nccl_library;
  r.launch = info.launch;
  r.nranks = info.world_size;
  r.topology = info.topology;
  r.rank_gpus = info.rank_gpus;
  return r;
}

Result<BenchResult> RunCollective(Backend& b, Watchdog* wd, CollectiveType kind,
                                  const RunOptions& o) {
  auto t0 = std::chrono::steady_clock::now();
  const BackendInfo& info = b.Info();
  int n = info.world_size;
  BenchResult result = NewLiveResult(b, CollectiveTypeName(kind));
  result.cuda_graph = o.graph_iters > 0;
  result.event_stride = result.cuda_graph ? 1 : info.event_stride;
  if (HasRoot(kind) && (o.root < 0 || o.root >= n))
    return MakeError(ErrorCode::kUsage, "--root " + std::to_string(o.root) + " is not a rank (0.." +
                                            std::to_string(n - 1) + ")");
  std::vector<uint64_t> sizes = SweepSizes(o.min_bytes, o.max_bytes, o.factor, o.step_bytes);
  if (sizes.empty()) return MakeError(ErrorCode::kUsage, "the size sweep is empty (-b > -e?)");

  auto spec_for = [&](uint64_t bytes) {
    CollSpec s;
    s.kind = kind;
    s.dtype = o.dtype;
    s.op = o.op;
    s.root = o.root;
    s.nranks = n;
    s.count = CountForBytes(kind, o.dtype, n, bytes);
    return s;
  };
  uint64_t mem = UINT64_MAX;
  for (const auto& r : info.ranks) mem = std::min(mem, r.mem_bytes);
  uint64_t ts = DataTypeBytes(o.dtype);
  auto need = [&](uint64_t bytes) {
    CollSpec s = spec_for(bytes);
    return (s.SendElems() + s.RecvElems()) * ts;
  };
  if (!o.max_bytes_explicit && mem != UINT64_MAX) {
    size_t before = sizes.size();
    while (sizes.size() > 1 && static_cast<double>(need(sizes.back())) > kDefaultMemShare * mem)
      sizes.pop_back();
    if (sizes.size() < before)
      result.notes.push_back("sizes above " + FormatBytes(static_cast<double>(sizes.back())) +
                             " were left out to fit in GPU memory (pass -e to force)");
  }
  CollSpec largest = spec_for(sizes.back());
  COMMDX_TRY(b.Reserve(largest.SendElems() * ts, largest.RecvElems() * ts));

  std::vector<Placement> placements;
  if (o.out_of_place) placements.push_back({false, &BenchRow::out_of_place});
  if (o.in_place) placements.push_back({true, &BenchRow::in_place});
  for (size_t i = 0; i < sizes.size(); ++i) {
    CollSpec spec = spec_for(sizes[i]);
    BenchRow row;
    row.bytes = spec.SizeBytes();
    row.count = spec.count;
    row.dtype = DataTypeName(o.dtype);
    row.redop = HasRedOp(kind) ? RedOpName(o.op) : "none";
    row.root = HasRoot(kind) ? o.root : -1;
    for (const auto& pl : placements) {
      spec.in_place = pl.in_place;
      COMMDX_ASSIGN_OR_RETURN(row.*pl.field,
                              MeasureCollPoint(b, wd, spec, i * 2 + pl.in_place, o, i == 0));
    }
    if (o.progress)
      o.progress(std::string(CollectiveTypeName(kind)) + " " +
                 FormatBytes(static_cast<double>(row.bytes)) + " (" + std::to_string(i + 1) + "/" +
                 std::to_string(sizes.size()) + ")");
    result.rows.push_back(std::move(row));
  }
  if (wd) wd->Disarm();
  result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

}  // namespace commdx::bench
