#include "ingest/registry.h"

#include "ingest/nccl_log/nccl_log_importer.h"

namespace commdx::ingest {

const std::vector<Importer>& Importers() {
  static const std::vector<Importer> kImporters = {
      {"nccl_log", "NCCL debug log (NCCL_DEBUG=INFO), any version 2.2+, plain or mixed output",
       &SniffNcclLog, &ParseNcclLog},
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
