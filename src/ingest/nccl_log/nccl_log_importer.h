// Importer for NCCL debug logs (NCCL_DEBUG=INFO/WARN), NCCL 2.2 to 2.28+.
#pragma once

#include <string_view>

#include "base/file.h"
#include "base/result.h"
#include "model/job.h"

namespace commdx::ingest {

bool SniffNcclLog(std::string_view head);
Status ParseNcclLog(const FileText& file, Job& job);

}  // namespace commdx::ingest
