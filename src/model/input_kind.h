// What an input file was recognised as: one value per format commdx reads, with the source of
// evidence it feeds ("trace", "logs", "bench", "topo", "env") and its display name.
#pragma once

#include <string>
#include <vector>

#include "model/finding.h"

namespace commdx {

enum class InputKind {
  kKineto,          // PyTorch profiler (Kineto) trace
  kNsys,            // Nsight Systems report (SQLite export, or .nsys-rep converted by nsys)
  kNcclTests,       // nccl-tests output
  kNcclLog,         // NCCL debug log
  kSnapshot,        // commdx machine snapshot
  kEnvDump,         // environment dump of a process
  kSmiTopo,         // nvidia-smi topo -m
  kSmiP2P,          // nvidia-smi topo -p2p
  kSmiNvlink,       // nvidia-smi nvlink -s
  kSavedResult,     // a saved commdx JSON result (compare)
  kFlightRecorder,  // PyTorch Flight Recorder dump (pickle or JSON), one per rank
  kJobLog,          // a job's stdout/stderr (torchrun, srun, mpirun): PyTorch watchdog lines
  kFrAnalysis,      // the text output of PyTorch's Flight Recorder analyzer (fr_trace)
  kSummary,         // a commdx summary (`commdx summarize`): what other inputs held, reduced
  kInspector,       // NCCL Inspector profiler plugin JSONL, one file per process
  kRas,             // NCCL RAS client (ncclras) report, text or JSON
  kNcclTestsJson,   // nccl-tests -J JSON (with -I: per-iteration times)
  kInspectorProm,   // NCCL Inspector in Prometheus mode: text exposition, one file per GPU
};

// The stable key shown in reports and accepted on the command line, e.g. "nccl_log".
const char* InputKindName(InputKind kind);

// The source of evidence the kind feeds, or Source::kNone (a saved result is not evidence).
Source InputKindSource(InputKind kind);

// Several kinds read from one file, as shown in reports: "nccl_tests+nccl_log".
std::string InputKindsName(const std::vector<InputKind>& kinds);

}  // namespace commdx
