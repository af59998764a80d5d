#include "ingest/registry.h"

#include "ingest/env_dump/env_dump_importer.h"
#include "ingest/flight_recorder/analyzer_text.h"
#include "ingest/flight_recorder/dump_reader.h"
#include "ingest/inspector/inspector_importer.h"
#include "ingest/job_log/job_log_importer.h"
#include "ingest/kineto/kineto_importer.h"
#include "ingest/nccl_log/nccl_log_importer.h"
#include "ingest/nccl_tests/nccl_tests_importer.h"
#include "ingest/nccl_tests/nccl_tests_json.h"
#include "ingest/nsys/nsys_importer.h"
#include "ingest/ras/ras_importer.h"
#include "ingest/smi_topo/smi_topo.h"
#include "ingest/snapshot/snapshot.h"
#include "ingest/summary/summary_importer.h"

namespace commdx::ingest {

const std::vector<Importer>& Importers() {
  using K = InputKind;
  static const std::vector<Importer> kImporters = {
      {K::kSummary,
       "commdx summary (`commdx summarize`): traces, logs and dumps reduced where they were "
       "written (docs/summary-format.md)",
       false, &SniffSummary, &ParseSummary, nullptr, &FinishTraceSet, true},
      {K::kInspector,
       "NCCL Inspector profiler plugin JSONL (one file per process, .log/.jsonl, .gz too)", false,
       &SniffInspector, &ParseInspector, nullptr, &FinishInspector, true},
      {K::kInspectorProm,
       "NCCL Inspector in Prometheus mode (NCCL_INSPECTOR_PROM_DUMP=1): "
       "nccl_inspector_metrics_<GPU>.prom, or a node exporter page with its samples",
       false, &SniffInspectorProm, &ParseInspectorProm, nullptr, &FinishInspector, true},
      {K::kNcclTestsJson,
       "nccl-tests JSON (-J FILE; with -I 1 the per-iteration times: p99 per size)", false,
       &SniffNcclTestsJson, &ParseNcclTestsJson, nullptr, nullptr, true},
      {K::kRas, "NCCL RAS client report (ncclras; text, JSON with -f json, monitor mode -m)", true,
       &SniffRas, &ParseRas, nullptr, nullptr, true},
      {K::kFlightRecorder,
       "PyTorch Flight Recorder dump (pickle or JSON, one file per rank, name ending in the rank)",
       false, &SniffFlightRecorder, &ParseFlightRecorder, nullptr, nullptr, true},
      {K::kKineto, "PyTorch profiler (Kineto) trace, .json or .json.gz, one file per rank", false,
       &SniffKineto, &ParseKineto, &StreamKineto, &FinishTraceSet, true},
      {K::kNsys,
       "Nsight Systems report: `nsys export --type sqlite` database (.sqlite, .sqlite.gz), "
       "one per rank or several processes in one",
       false, &SniffNsys, &ParseNsys, &StreamNsys, &FinishTraceSet, true},
      {K::kNcclTests,
       "nccl-tests output (all_reduce_perf, sendrecv_perf, ...), any version's table", true,
       &SniffNcclTests, &ParseNcclTests, nullptr, nullptr, true},
      {K::kNcclLog, "NCCL debug log (NCCL_DEBUG=INFO), any version 2.2+, plain or mixed output",
       true, &SniffNcclLog, &ParseNcclLog, nullptr, nullptr, true, &NcclLogWindows},
      {K::kJobLog,
       "job stdout/stderr (torchrun, srun, mpirun): PyTorch ProcessGroupNCCL watchdog lines", true,
       &SniffJobLog, &ParseJobLog, nullptr, nullptr, true, &JobLogWindows},
      {K::kFrAnalysis,
       "PyTorch Flight Recorder analyzer output (fr_trace / torchfrtrace text): culprit ranks, "
       "error types, sequence numbers",
       true, &SniffFrAnalysis, &ParseFrAnalysis, nullptr, nullptr, true},
      {K::kSnapshot, "commdx machine snapshot (commdx topo/env --save): topology and environment",
       false, &SniffSnapshot, &ParseSnapshot, nullptr, nullptr},
      {K::kEnvDump,
       "environment dump of a process: JSON with \"environ\" (commdx workloads' env_rank*.json)",
       false, &SniffEnvDump, &ParseEnvDump, nullptr, nullptr},
      {K::kSmiTopo, "nvidia-smi topo -m: GPU/NIC connection matrix, CPU/NUMA affinity, NIC legend",
       true, &SniffSmiTopoMatrix, &ParseSmiTopoMatrix, nullptr, nullptr},
      {K::kSmiP2P, "nvidia-smi topo -p2p r|w|n|a|p: P2P status matrix", true, &SniffSmiP2PMatrix,
       &ParseSmiP2PMatrix, nullptr, nullptr},
      {K::kSmiNvlink, "nvidia-smi nvlink -s (or -L): GPUs, NVLink state and speed per link", true,
       &SniffSmiNvlinkStatus, &ParseSmiNvlinkStatus, nullptr, nullptr},
  };
  return kImporters;
}

const Importer* FindImporter(std::string_view name) {
  for (const auto& imp : Importers())
    if (name == imp.name()) return &imp;
  return nullptr;
}

const Importer* FindImporter(InputKind kind) {
  for (const auto& imp : Importers())
    if (kind == imp.kind) return &imp;
  return nullptr;
}

const Importer* SniffImporter(std::string_view head) {
  for (const auto& imp : Importers())
    if (imp.sniff(head)) return &imp;
  return nullptr;
}

}  // namespace commdx::ingest
