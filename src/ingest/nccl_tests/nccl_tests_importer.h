// nccl-tests output (all_reduce_perf, sendrecv_perf, ...), any version: the result table is
// read through its own header line, so old layouts (no "root" column, an "error" column
// instead of "#wrong", all_gather without "redop") and new ones parse alike. One file may hold
// several tests (outputs appended): each table becomes one BenchResult.
#pragma once

#include <string_view>

#include "base/file.h"
#include "base/result.h"
#include "model/job.h"

namespace commdx::ingest {

bool SniffNcclTests(std::string_view head);
Status ParseNcclTests(const FileText& file, Job& job);

}  // namespace commdx::ingest
