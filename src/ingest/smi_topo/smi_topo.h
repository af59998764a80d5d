// Importers for nvidia-smi text saved to files: `nvidia-smi topo -m` (the connection matrix with
// CPU/NUMA affinity and the NIC legend), `nvidia-smi nvlink -s` (per-link speed or <inactive>;
// `nvidia-smi -L` reads too) and `nvidia-smi topo -p2p r|w|n|a` (the P2P status matrix).
// Each fills job.topo; recognised by content, never by file name.
#pragma once

#include <string_view>

#include "base/file.h"
#include "base/result.h"
#include "model/job.h"

namespace commdx::ingest {

bool SniffSmiTopoMatrix(std::string_view head);
Status ParseSmiTopoMatrix(const FileText& file, Job& job);

bool SniffSmiNvlinkStatus(std::string_view head);
Status ParseSmiNvlinkStatus(const FileText& file, Job& job);

bool SniffSmiP2PMatrix(std::string_view head);
Status ParseSmiP2PMatrix(const FileText& file, Job& job);

}  // namespace commdx::ingest
