// nccl-tests output parse speed, and the nvidia-smi text and snapshot importers per file. The
// nccl-tests input is built in memory by repeating the real 2xH200 outputs of reference/h200x2
// (every table of every collective) up to the size asked for; nvidia-smi and snapshot inputs are
// always small, so those cases time one real file each (microseconds per file is the number that
// matters).
//   nccl_tests_bench --benchmark_filter=ParseNcclTests/64
#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>
#include <vector>

#include "base/file.h"
#include "ingest/registry.h"

namespace {

std::string Read(const std::string& path) {
  auto f = commdx::ReadFile(path);
  if (!f) {
    std::fprintf(stderr, "nccl_tests_bench: %s\n", f.error().ToString().c_str());
    return {};
  }
  return std::move(f->data);
}

std::string RealOutputs() {
  const std::string dir = std::string(COMMDX_SOURCE_DIR) + "/tests/data/h200x2_reference/";
  std::string out;
  for (const char* name : {"nccl-tests-allreduce-base.txt", "nccl-tests-allgather-base.txt",
                           "nccl-tests-allreduce-graph.txt", "nccl-tests-allreduce-onech.txt",
                           "nccl-tests-allreduce-p2poff.txt", "nccl-tests-allreduce-socket.txt",
                           "nccl-tests-sendrecv-base.txt"}) {
    out += Read(dir + name);
    if (!out.empty() && out.back() != '\n') out += '\n';
  }
  return out;
}

void Parse(benchmark::State& state, const char* importer, const commdx::FileText& file) {
  const commdx::ingest::Importer* imp = commdx::ingest::FindImporter(importer);
  if (!imp || file.data.empty()) {
    state.SkipWithError("importer or input missing");
    return;
  }
  for (auto _ : state) {
    commdx::Job job;
    auto st = imp->parse(file, job);
    if (!st) state.SkipWithError(st.error().ToString().c_str());
    benchmark::DoNotOptimize(job);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(file.data.size()));
}

void ParseNcclTests(benchmark::State& state) {
  static std::string unit = RealOutputs();
  commdx::FileText file;
  file.path = "generated-nccl-tests.txt";
  const size_t bytes = static_cast<size_t>(state.range(0)) << 20;
  while (!unit.empty() && file.data.size() + unit.size() <= bytes) file.data += unit;
  Parse(state, "nccl_tests", file);
}
BENCHMARK(ParseNcclTests)->Arg(1)->Arg(64)->Unit(benchmark::kMillisecond);

void ParseSmiFile(benchmark::State& state, const char* importer, const std::string& path) {
  commdx::FileText file;
  file.path = path;
  file.data = Read(path);
  Parse(state, importer, file);
}
const std::string kData = std::string(COMMDX_SOURCE_DIR) + "/tests/data/smi/";
BENCHMARK_CAPTURE(ParseSmiFile, topo_h200x2, "smi_topo", kData + "h200x2-topo-m.txt");
BENCHMARK_CAPTURE(ParseSmiFile, topo_h100x8, "smi_topo", kData + "h100x8-nv16-topo-m.txt");
BENCHMARK_CAPTURE(ParseSmiFile, p2p_pcie8, "smi_p2p", kData + "pcie8-p2p-r.txt");
BENCHMARK_CAPTURE(ParseSmiFile, nvlink_h100x8, "smi_nvlink", kData + "h100x8-nvlink-s.txt");
// commdx's own snapshots (topo/env --save) are small JSON files too: real 2xH200 ones.
const std::string kSnap = std::string(COMMDX_SOURCE_DIR) + "/tests/data/snapshot/";
BENCHMARK_CAPTURE(ParseSmiFile, snapshot_topo_h200x2, "snapshot", kSnap + "h200x2-topo.json");
BENCHMARK_CAPTURE(ParseSmiFile, snapshot_env_h200x2, "snapshot", kSnap + "h200x2-env.json");

}  // namespace

BENCHMARK_MAIN();
