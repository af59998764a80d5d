// Analyzers over benchmark results (live `commdx bench` runs and nccl-tests files).
// Thresholds are documented in docs/findings/bench.md.
#pragma once

#include <string>
#include <vector>

#include "analysis/registry.h"
#include "model/bench_result.h"

namespace commdx::analysis {

// Plateau busbw below 50% (warning) / 35% (error) of the link's line rate.
std::vector<Finding> FindBenchLowBusbw(const AnalysisInput& input, const Options& options);
// Bus bandwidth of the largest sizes fallen under half of the sweep's peak.
std::vector<Finding> FindBenchBusbwDrop(const AnalysisInput& input, const Options& options);
// Small-message latency floor above 25 us on one node (60 us across nodes).
std::vector<Finding> FindBenchHighLatency(const AnalysisInput& input, const Options& options);
// A directed GPU pair copying below 80% of the best pair of the same method and direction mode.
std::vector<Finding> FindBenchAsymmetricPair(const Job& job, const Options& options);
// Two or more ranks of a live run on one GPU (the same CUDA UUID): the times are time slices.
std::vector<Finding> FindBenchSharedGpu(const Job& job, const Options& options);
// Several processes' nccl-tests runs written into one output (two summaries in one table, sizes
// that go back): each process ran alone, as nccl-tests built without MPI does under mpirun.
std::vector<Finding> FindBenchInterleavedRuns(const Job& job, const Options& options);
// nccl-tests printed "Test NCCL failure" / "Test CUDA failure": the run stopped there.
std::vector<Finding> FindBenchTestFailed(const AnalysisInput& input, const Options& options);
// bench.no_results: nccl-tests printed its header (and maybe its column header) and no size.
std::vector<Finding> FindBenchNoResults(const AnalysisInput& input, const Options& options);
// Wrong elements after a collective (#wrong, or nccl-tests' out-of-bounds count).
std::vector<Finding> FindBenchWrongResults(const AnalysisInput& input, const Options& options);

// One finding per replayed process group of `commdx bench replay` runs (replay_verdict.h):
// replay.slow_in_job, replay.slow_alone or replay.as_alone.
std::vector<Finding> FindReplayVerdicts(const AnalysisInput& input, const Options& options);

// "all_reduce (nccl-tests, reference/allreduce.txt)" / "all_reduce (commdx bench, 2 ranks)"
std::string BenchLabel(const BenchResult& result);
// Evidence pointing at one row: its file:line for an nccl-tests file, words for a live run.
EvidenceRef BenchRowRef(const BenchResult& result, const BenchRow& row, const std::string& what);

}  // namespace commdx::analysis
