#include "bench/p2p_runner.h"

#include <chrono>

#include "base/text.h"
#include "bench/coll_runner.h"
#include "bench/measure.h"
#include "bench/stats.h"

namespace commdx::bench {

namespace {

struct Measured {
  double median_ns[2] = {0, 0};
  double p10_ns[2] = {0, 0};
  double p90_ns[2] = {0, 0};
};

Result<Measured> Measure(Backend& b, Watchdog* wd, const CopySpec& spec, const RunOptions& o) {
  std::string what = std::string(spec.sm ? "SM" : "copy-engine") + " copy GPU " +
                     std::to_string(spec.src) + (spec.bidirectional ? " <-> " : " -> ") + "GPU " +
                     std::to_string(spec.dst) + " " + FormatBytes(static_cast<double>(spec.bytes));
  if (wd) wd->Arm(what + " (warm-up)");
  COMMDX_TRY(b.TimeCopy(spec, std::max(1, o.warmup)));
  if (wd) wd->Arm(what);
  COMMDX_ASSIGN_OR_RETURN(TimeMatrix t,
                          MeasureAdaptive([&](int n) { return b.TimeCopy(spec, n); }, o));
  Measured m;
  for (size_t d = 0; d < t.size() && d < 2; ++d) {
    m.median_ns[d] = Median(t[d]);
    m.p10_ns[d] = Percentile(t[d], 0.1);
    m.p90_ns[d] = Percentile(t[d], 0.9);
  }
  return m;
}

P2pResult Entry(int src, int dst, const char* method, bool bi, uint64_t bytes) {
  P2pResult r;
  r.src = src;
  r.dst = dst;
  r.method = method;
  r.bidirectional = bi;
  r.bytes = bytes;
  return r;
}

void FillBandwidth(P2pResult& r, const Measured& m, int d) {
  double b = static_cast<double>(r.bytes);
  if (m.median_ns[d] > 0) r.bandwidth_gbps = b / m.median_ns[d];
  if (m.p90_ns[d] > 0) r.p10_gbps = b / m.p90_ns[d];  // slow iterations give the low percentile
  if (m.p10_ns[d] > 0) r.p90_gbps = b / m.p10_ns[d];
}

}  // namespace

Result<BenchResult> RunP2p(Backend& b, Watchdog* wd, const RunOptions& o) {
  auto t0 = std::chrono::steady_clock::now();
  const BackendInfo& info = b.Info();
  BenchResult result = NewLiveResult(b, "p2p");
  int g = info.local_ranks;
  if (info.local_ranks != info.world_size) {
    result.notes.push_back(
        "p2p waived: it needs one process that sees every GPU; run it without "
        "torchrun/mpirun variables");
    return result;
  }
  if (g < 2) {
    result.notes.push_back("p2p waived: it needs at least two GPUs, this process sees " +
                           std::to_string(g));
    return result;
  }
  COMMDX_TRY(b.Reserve(o.p2p_bytes, o.p2p_bytes));
  for (bool sm : {false, true}) {
    const char* method = sm ? "sm" : "ce";
    if (sm && !info.sm_kernels) {
      P2pResult w = Entry(0, 1, method, false, o.p2p_bytes);
      w.waived = "commdx was built without nvcc: no SM copy kernel";
      result.p2p.push_back(w);
      continue;
    }
    for (int i = 0; i < g; ++i)
      for (int j = 0; j < g; ++j) {
        if (i == j) continue;
        P2pResult r = Entry(i, j, method, false, o.p2p_bytes);
        COMMDX_ASSIGN_OR_RETURN(Measured bw, Measure(b, wd, {i, j, sm, false, o.p2p_bytes}, o));
        FillBandwidth(r, bw, 0);
        COMMDX_ASSIGN_OR_RETURN(Measured lat,
                                Measure(b, wd, {i, j, sm, false, o.p2p_latency_bytes}, o));
        r.latency_us = lat.median_ns[0] / 1e3;
        result.p2p.push_back(r);
        if (o.progress)
          o.progress(std::string("p2p ") + method + " " + std::to_string(i) + "->" +
                     std::to_string(j));
      }
    for (int i = 0; i < g; ++i)
      for (int j = i + 1; j < g; ++j) {
        COMMDX_ASSIGN_OR_RETURN(Measured bw, Measure(b, wd, {i, j, sm, true, o.p2p_bytes}, o));
        P2pResult a = Entry(i, j, method, true, o.p2p_bytes);
        P2pResult c = Entry(j, i, method, true, o.p2p_bytes);
        FillBandwidth(a, bw, 0);
        FillBandwidth(c, bw, 1);
        result.p2p.push_back(a);
        result.p2p.push_back(c);
      }
  }
  if (wd) wd->Disarm();
  result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

}  // namespace commdx::bench
