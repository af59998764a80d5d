// What a command asks of the pipeline (pipeline.h): where the job comes from, what must have
// been read, which analyzers run, which tables and charts the report shows.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "diagnose/diagnosis.h"
#include "ingest/load_inputs.h"
#include "model/job.h"
#include "report/report.h"

namespace commdx::pipeline {

// What the files must have given for the command to have anything to say; when they gave none
// of it, the run ends with the one "nothing was read" error (nothing_read.h).
enum class Needs {
  kAnyInput,     // any file commdx reads (diagnose)
  kNcclLines,    // an NCCL log line (logs)
  kTrace,        // a profiler trace or Nsight Systems report (trace)
  kTopology,     // a topology (topo)
  kEnvironment,  // an environment section (env)
  kCollectives,  // a record of the collectives the job issued (bench replay)
};

// A part of the report, shown when its source is present (the topology and environment of a
// live probe always are: the probe looked, even where it found little).
enum class Part { kInputs, kNccl, kTrace, kBench, kReplay, kTopology, kEnvironment };

// Every part, in the order `commdx diagnose` shows them.
inline std::vector<Part> EveryPart() {
  return {Part::kInputs, Part::kNccl,     Part::kTrace,      Part::kBench,
          Part::kReplay, Part::kTopology, Part::kEnvironment};
}

struct Request {
  std::string command;  // the report's command: "diagnose", "logs", "bench all_reduce", ...
  // The job: read from `paths` (ingest::LoadInputs with `load`), or `job` when the command
  // gathered the facts itself (a live probe, a benchmark) — then `paths` and `needs` are unused.
  std::vector<std::string> paths;
  ingest::LoadOptions load;
  std::optional<Job> job;
  bool live = false;  // `job` is this node, probed now
  Needs needs = Needs::kAnyInput;
  diagnose::DiagnoseOptions diagnose;      // which analyzers; whether a root cause is named
  std::vector<diagnose::Gap> not_checked;  // what the command knows it could not check
  std::vector<Part> parts;                 // the tables, in this order
  bool charts = false;                     // trace and bench charts (drawn in HTML only)
};

struct Outcome {
  Job job;  // what was read or given (topo and env --save write its topology and environment)
  report::Report report;
};

}  // namespace commdx::pipeline
