#include "ingest/registry.h"

#include "ingest/env_dump/env_dump_importer.h"
#include "ingest/kineto/kineto_importer.h"
#include "ingest/nccl_log/nccl_log_importer.h"
#include "ingest/nccl_tests/nccl_tests_importer.h"
#include "ingest/smi_topo/smi_topo.h"
#include "ingest/snapshot/snapshot.h"

namespace commdx::ingest {

const std::vector<Importer>& Importers() {
  static const std::vector<Importer> kImporters = {
      {"kineto", "PyTorch profiler (Kineto) trace, .json or .json.gz, one file per rank",
       &SniffKineto, &ParseKineto},
      {"nccl_tests", "nccl-tests output (all_reduce_perf, sendrecv_perf, ...), any version's table",
       &SniffNcclTests, &ParseNcclTests},
      {"nccl_log", "NCCL debug log (NCCL_DEBUG=INFO), any version 2.2+, plain or mixed output",
       &SniffNcclLog, &ParseNcclLog},
      {"snapshot", "commdx machine snapshot (commdx topo/env --save): topology and environment",
       &SniffSnapshot, &ParseSnapshot},
      {"env_dump", "environment dump of a process: JSON with \"environ\" (commdx workloads' env_rank*.json)",
       &SniffEnvDump, &ParseEnvDump},
      {"smi_topo", "nvidia-smi topo -m: GPU/NIC connection matrix, CPU/NUMA affinity, NIC legend",
       &SniffSmiTopoMatrix, &ParseSmiTopoMatrix},
      {"smi_p2p", "nvidia-smi topo -p2p r|w|n|a|p: P2P status matrix", &SniffSmiP2PMatrix,
       &ParseSmiP2PMatrix},
      {"smi_nvlink", "nvidia-smi nvlink -s (or -L): GPUs, NVLink state and speed per link",
       &SniffSmiNvlinkStatus, &ParseSmiNvlinkStatus},
  };
  return kImporters;
}

const Importer* FindImporter(std::string_view name) {
  for (const auto& imp : Importers())
    if (name == imp.name) return &imp;
  return nullptr;
}

const Importer* SniffImporter(std::string_view head) {
  for (const auto& imp : Importers())
    if (imp.sniff(head)) return &imp;
  return nullptr;
}

}  // namespace commdx::ingest
