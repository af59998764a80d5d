// Parse speed of the hang inputs (issue 18 target: the NCCL log parser's >= 500 MB/s on one
// core): job logs (torchrun output with ProcessGroupNCCL, DDP and watchdog lines) and NCCL logs
// full of COLL/TUNING lines. The inputs are built in memory by replicating the real captures and
// public excerpts of tests/data/hang up to the size asked for; nothing large is committed.
//   hang_inputs_bench --benchmark_filter=JobLog
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "base/file.h"
#include "ingest/job_log/job_log_importer.h"
#include "ingest/nccl_log/nccl_log_importer.h"

namespace {

std::string Concat(const std::vector<std::string>& rels) {
  std::string out;
  const std::string dir = std::string(COMMDX_SOURCE_DIR) + "/tests/data/hang/";
  for (const std::string& rel : rels) {
    auto f = commdx::ReadFile(dir + rel);
    if (!f) {
      std::fprintf(stderr, "hang_inputs_bench: %s\n", f.error().ToString().c_str());
      continue;
    }
    out += f->data;
    if (!out.empty() && out.back() != '\n') out += '\n';
  }
  return out;
}

std::string Replicate(const std::string& unit, size_t mib) {
  std::string out;
  out.reserve(mib << 20);
  while (!unit.empty() && out.size() + unit.size() <= (mib << 20)) out += unit;
  return out;
}

commdx::FileText JobLogText(size_t mib) {
  static const std::string unit =
      Concat({"h200_healthy/job.log", "h200_timeout/job.log", "public/watchdog_basicsr737.log",
              "public/watchdog_llamafactory7396.log", "public/watchdog_pytorch118369_old.log",
              "public/watchdog_diffsynth458_coalesced.log"});
  return {"generated_job.log", Replicate(unit, mib)};
}

// The real NCCL logs once (their init lines name the communicators), then their COLL lines
// ("opCount") over and over, as in a long run: COLL lines are what such a log is made of.
commdx::FileText CollLogText(size_t mib) {
  static const std::string logs =
      Concat({"h200_healthy/nccl.vm.2355.log", "h200_timeout/nccl.vm.2421.log",
              "public/rccl429_desync_excerpt.log", "public/nccl584_sendrecv_excerpt.log"});
  std::string coll;
  for (size_t at = 0; at < logs.size();) {
    size_t end = std::min(logs.find('\n', at), logs.size());
    std::string_view line(logs.data() + at, end - at);
    if (line.find(" opCount ") != std::string_view::npos) coll.append(line).push_back('\n');
    at = end + 1;
  }
  commdx::FileText f{"generated_nccl.log", logs};
  f.data += Replicate(coll, mib);
  return f;
}

void JobLog(benchmark::State& state) {
  commdx::FileText file = JobLogText(static_cast<size_t>(state.range(0)));
  size_t found = 0;
  for (auto _ : state) {
    commdx::Job job;
    (void)commdx::ingest::ParseJobLog(file, job);
    found = job.job_log.timeouts.size() + job.job_log.statuses.size() +
            job.job_log.process_groups.size() + job.job_log.ddp.size();
    benchmark::DoNotOptimize(job);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * file.data.size()));
  state.counters["facts"] = static_cast<double>(found);
}
BENCHMARK(JobLog)->Arg(256)->Unit(benchmark::kMillisecond);

void CollLines(benchmark::State& state) {
  commdx::FileText file = CollLogText(static_cast<size_t>(state.range(0)));
  size_t calls = 0;
  for (auto _ : state) {
    commdx::Job job;
    commdx::ingest::ParseNcclLogText(file, job);
    calls = 0;
    for (const auto& s : job.nccl.call_streams) calls += s.calls.size();
    benchmark::DoNotOptimize(job);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * file.data.size()));
  state.counters["calls"] = static_cast<double>(calls);
}
BENCHMARK(CollLines)->Arg(256)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
