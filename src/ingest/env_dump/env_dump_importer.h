// Importer for per-process environment dumps: a JSON object with the process's environment
// variables under "environ" (or "env"), and optionally who the process was. commdx's workloads
// write one per rank (env_rank0.json); a user can make one with
//   python3 -c 'import json,os; print(json.dumps({"environ": dict(os.environ), "cpu_count":
//   os.cpu_count()}))'
#pragma once

#include <string_view>

#include "base/file.h"
#include "base/result.h"
#include "model/job.h"

namespace commdx::ingest {

bool SniffEnvDump(std::string_view head);
Status ParseEnvDump(const FileText& file, Job& job);

}  // namespace commdx::ingest
