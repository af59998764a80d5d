// NCCL debug-log parse speed (target >= 500 MB/s on one core, docs/measurements/nccl-log-parse.md). The input is built in
// memory by replicating real logs (the 2xH200 reference log, the ddp_socket capture and the public
// fixtures) up to the size asked for, so nothing large is committed.
//   nccl_log_bench --benchmark_filter=ParseNcclLog/1024   (a 1 GiB log)
#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>

#include "base/file.h"
#include "ingest/nccl_log/nccl_log_importer.h"

namespace {

std::string RealLines() {
  std::string out;
  const std::string source = COMMDX_SOURCE_DIR;
  const std::string fixtures = source + "/tests/data/nccl_log_fixtures/";
  for (const std::string& path :
       {source + "/tests/data/h200x2_reference/nccl-debug-allreduce-base.log",
        source + "/tests/golden/nccl_logs/inputs/ddp_socket/nccl.vm.1051.log",
        fixtures + "case18-nccl2.18p-ib-no-gdrdma-low-busbw.log",
        fixtures + "case22-nccl2.9-horovod-duplicate-gpu-all-ranks-device0.log",
        fixtures + "case33-nccl2.18-h800-nvls-unavailable-0-nvls-channels.log"}) {
    auto f = commdx::ReadFile(path);
    if (!f) {
      std::fprintf(stderr, "nccl_log_bench: %s\n", f.error().ToString().c_str());
      continue;
    }
    out += f->data;
    if (!out.empty() && out.back() != '\n') out += '\n';
  }
  return out;
}

const std::string& Log(size_t mib) {
  static std::string cache;
  static size_t cached_mib = 0;
  if (cached_mib != mib) {
    std::string unit = RealLines();
    cache.clear();
    cache.reserve(mib << 20);
    while (cache.size() + unit.size() <= (mib << 20)) cache += unit;
    cached_mib = mib;
  }
  return cache;
}

void ParseNcclLog(benchmark::State& state) {
  commdx::FileText file;
  file.path = "generated.log";
  file.data = Log(static_cast<size_t>(state.range(0)));
  uint64_t lines = 0;
  for (auto _ : state) {
    commdx::Job job;
    commdx::ingest::ParseNcclLogText(file, job);
    lines = job.nccl.nccl_lines;
    benchmark::DoNotOptimize(job);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(file.data.size()));
  state.counters["nccl_lines"] = static_cast<double>(lines);
}
BENCHMARK(ParseNcclLog)->Arg(64)->Unit(benchmark::kMillisecond);
// The 1 GiB log of the issue: run explicitly (needs ~2.5 GB of memory, a few seconds).
BENCHMARK(ParseNcclLog)->Arg(1024)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
