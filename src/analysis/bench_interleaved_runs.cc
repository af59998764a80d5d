// bench.interleaved_runs: one nccl-tests process prints its sizes in increasing order and one
// "# Avg bus bandwidth" line per run. A table whose sizes go back, or that holds two summaries
// with no header between, is several processes' runs written into one output: each process ran
// a test of its own. Under mpirun or srun that is nccl-tests built without MPI (`make MPI=1`
// missing): every process runs a single-process test over its own GPUs, so nothing crosses
// between processes or hosts and the numbers say nothing about the network (nccl-tests#27,
// #182).
#include <algorithm>
#include <map>
#include <string>
#include <tuple>

#include "analysis/bench_analyzers.h"
#include "analysis/catalogue.h"

namespace commdx::analysis {

std::vector<Finding> FindBenchInterleavedRuns(const Job& job, const Options&) {
  std::vector<Finding> out;
  for (const BenchResult& r : job.bench) {
    if (r.source != BenchSource::kNcclTests) continue;
    // Rows whose size is not above the previous row of the same type, reduction and root (a
    // run with -d all or -o all prints one row per type or reduction at each size).
    int back = 0;
    const BenchRow* first_back = nullptr;
    std::map<std::tuple<std::string, std::string, int>, uint64_t> last;
    for (const BenchRow& row : r.rows) {
      auto [it, fresh] = last.try_emplace({row.dtype, row.redop, row.root}, row.bytes);
      if (!fresh && row.bytes <= it->second && ++back == 1) first_back = &row;
      it->second = row.bytes;
    }
    if (r.summaries < 2 && back == 0) continue;
    Finding f = NewFinding("bench.interleaved_runs");
    f.severity = Severity::kError;
    // Each summary closes one run; sizes that go back say only that there were two or more.
    const int runs = std::max(r.summaries, 2);
    f.title = "This output holds " + std::string(r.summaries >= 2 ? "" : "at least ") +
              std::to_string(runs) + " nccl-tests runs interleaved: each process ran its own test";
    f.detail =
        "One nccl-tests run prints its sizes in increasing order and one '# Avg bus "
        "bandwidth' line; here ";
    if (r.summaries >= 2) f.detail += std::to_string(r.summaries) + " summaries follow one header";
    if (r.summaries >= 2 && back > 0) f.detail += " and ";
    if (back > 0) f.detail += "sizes go back " + std::to_string(back) + " times";
    f.detail +=
        ". Several processes wrote runs of their own into one output: launched by mpirun or "
        "srun, that is nccl-tests built without MPI support, where every process runs a "
        "single-process test over its own GPUs. No data crossed between the processes (nor "
        "between hosts): the bandwidths are each process's own, and say nothing about the "
        "network or the links between them.";
    f.metrics = {{"runs", static_cast<double>(runs), Unit::kCount},
                 {"summaries", static_cast<double>(r.summaries), Unit::kCount}};
    f.refs.push_back({first_back ? first_back->loc : SourceLoc{r.file},
                      first_back ? "a size not above the row before" : BenchLabel(r)});
    f.fix =
        "Rebuild nccl-tests with MPI (`make MPI=1 MPI_HOME=/path/to/mpi`, and NCCL_HOME), launch "
        "one process per GPU (`mpirun -np <ranks> ./build/all_reduce_perf -g 1 ...`), and check "
        "that the header's device list names every rank once, on every host.";
    f.confidence = r.summaries >= 2 ? 0.9 : 0.75;
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace commdx::analysis
