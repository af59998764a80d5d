// The Job: every fact commdx knows about one training job (or one node), format-free.
// Importers and probes fill it through the builders of each part; analyzers only read it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/diagnostics.h"
#include "model/bench_result.h"
#include "model/environment.h"
#include "model/flight_recorder.h"
#include "model/input_kind.h"
#include "model/inspector.h"
#include "model/job_log.h"
#include "model/nccl_setup.h"
#include "model/ras.h"
#include "model/replay_result.h"
#include "model/topology.h"
#include "model/trace.h"

namespace commdx {

// An input file and what it was recognised as.
struct InputFile {
  std::string path;
  std::vector<InputKind> kinds;  // what it was read as; several when formats share the file
  uint64_t bytes = 0;
  // A summary (kinds: summary, then what its files were read as): the files it was made from.
  std::vector<std::string> summarised_from = {};
};

struct SkippedInput {
  std::string path;
  std::string reason;
};

struct Job {
  std::vector<InputFile> inputs;
  std::vector<SkippedInput> skipped;
  NcclSetup nccl;   // from NCCL debug logs
  TraceSet trace;   // from PyTorch profiler (Kineto) traces, one RankTrace per file
  Topology topo;    // GPUs, links, NUMA, NICs (live probe, nvidia-smi text, snapshot)
  EnvSnapshot env;  // environment of the node (live probe or snapshot)
  std::vector<BenchResult> bench;          // live `commdx bench` runs and nccl-tests outputs
  std::vector<FrDump> flight;              // PyTorch Flight Recorder dumps, one per rank
  JobLogFacts job_log;                     // the job's own stdout/stderr (watchdog timeouts)
  std::vector<InspectorRecord> inspector;  // NCCL Inspector JSONL, in file and line order
  std::vector<InspectorBucket> inspector_buckets;  // its Prometheus output from NCCL 2.30 on
  std::vector<RasReport> ras;              // NCCL RAS client reports, one per file
  std::vector<ReplayResult> replay;        // `commdx bench replay` runs (live or saved)
  Diagnostics quality;  // bad records skipped while reading, for the input-quality section
};

}  // namespace commdx
