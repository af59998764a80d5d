// Trace ingest + every trace analysis on one core, on a large trace generated from a real one:
//
//   python3 bench_programs/make_large_trace.py captures/ddp_healthy/trace_rank0.json.gz
//       /tmp/commdx-large-trace.json --gb 1
//   gzip -k /tmp/commdx-large-trace.json            # for the gzip case
//   build/bench_programs/trace_bench --benchmark_filter=IngestAnalyze/   # one case per process,
//                                                                         # so peak RSS is its own
//
// COMMDX_TRACE_BENCH_FILE overrides the path. Reported: bytes/s of decompressed JSON per second
// of process CPU time (one thread, so per core; the VM is shared, wall time is not), peak RSS of
// the process (MB) and peak RSS / JSON size. Results: docs/measurements/trace-ingest.md.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "analysis/hta_compat.h"
#include "analysis/registry.h"
#include "analysis/trace_facts.h"
#include "ingest/kineto/kineto_importer.h"
#include "ingest/load_inputs.h"

namespace {

using commdx::Job;

std::string BenchFile(bool gz) {
  const char* env = std::getenv("COMMDX_TRACE_BENCH_FILE");
  std::string path = env ? env : "/tmp/commdx-large-trace.json";
  return gz ? path + ".gz" : path;
}

uint64_t JsonBytes(const std::string& plain) {
  std::error_code ec;
  auto n = std::filesystem::file_size(plain, ec);
  return ec ? 0 : n;
}

double PeakRssMb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;  // KiB on Linux
}

Job Ingest(const std::string& path) {
  commdx::ingest::LoadOptions o = commdx::ingest::ForcedKind(commdx::InputKind::kKineto);
  o.threads = 1;
  auto job = commdx::ingest::LoadInputs({path}, o);
  if (!job) std::abort();
  return std::move(*job);
}

size_t Analyze(const Job& job) {
  auto findings = commdx::analysis::RunAnalyzers(job, {}, {commdx::Source::kTrace});
  size_t n = findings.size();
  for (const auto& r : job.trace.ranks)
    n += commdx::analysis::ComputeHtaCompat(r).kernel_time_ns > 0;
  return n;
}

void Report(benchmark::State& state, uint64_t json_bytes) {
  state.SetBytesProcessed(static_cast<int64_t>(json_bytes) * state.iterations());
  double rss = PeakRssMb();
  state.counters["peak_rss_MB"] = rss;
  state.counters["rss_over_json"] =
      json_bytes ? rss * 1024 * 1024 / static_cast<double>(json_bytes) : 0;
  state.counters["json_MB"] = static_cast<double>(json_bytes) / 1e6;
}

bool Ready(benchmark::State& state, const std::string& path) {
  if (std::filesystem::exists(path)) return true;
  state.SkipWithError(
      ("missing " + path + ": make it with bench_programs/make_large_trace.py").c_str());
  return false;
}

// The whole job: stream the file, build the model, every analysis, HTA-comparable numbers.
void BM_TraceIngestAnalyze(benchmark::State& state) {
  const std::string path = BenchFile(false);
  if (!Ready(state, path)) return;
  for (auto _ : state) {
    Job job = Ingest(path);
    benchmark::DoNotOptimize(Analyze(job));
  }
  Report(state, JsonBytes(path));
}

void BM_TraceIngestAnalyzeGzip(benchmark::State& state) {
  const std::string path = BenchFile(true);
  if (!Ready(state, path)) return;
  for (auto _ : state) {
    Job job = Ingest(path);
    benchmark::DoNotOptimize(Analyze(job));
  }
  Report(state, JsonBytes(BenchFile(false)));
}

void BM_TraceIngestOnly(benchmark::State& state) {
  const std::string path = BenchFile(false);
  if (!Ready(state, path)) return;
  for (auto _ : state) {
    Job job = Ingest(path);
    benchmark::DoNotOptimize(job.trace.ranks.size());
  }
  Report(state, JsonBytes(path));
}

void BM_TraceAnalyzeOnly(benchmark::State& state) {
  const std::string path = BenchFile(false);
  if (!Ready(state, path)) return;
  Job job = Ingest(path);
  for (auto _ : state) benchmark::DoNotOptimize(Analyze(job));
  Report(state, JsonBytes(path));
}

BENCHMARK(BM_TraceIngestAnalyze)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3)
    ->MeasureProcessCPUTime();
BENCHMARK(BM_TraceIngestAnalyzeGzip)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(2)
    ->MeasureProcessCPUTime();
BENCHMARK(BM_TraceIngestOnly)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3)
    ->MeasureProcessCPUTime();
BENCHMARK(BM_TraceAnalyzeOnly)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3)
    ->MeasureProcessCPUTime();

}  // namespace

BENCHMARK_MAIN();
