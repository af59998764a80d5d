// nccl-tests' JSON output (`-J FILE`, nccl-tests 2.17+; "version": 3 in 2.19.6), with per-iteration
// timing when run with `-I 1` ("out_of_place_per_iter": min/max/avg/p50/p95/p99 µs and every
// iteration's time). Each file is one test: one BenchResult with the rows the text table gives
// (sizes, times, algbw, busbw, #wrong), plus the 99th percentile per size where -I was on.
// Recognised by an object with "results", "config" and "nccl_version" whose "args" name a *_perf
// binary or whose "config" has "minimum_bytes".
#pragma once

#include <string_view>

#include "base/file.h"
#include "base/result.h"
#include "model/job.h"

namespace commdx::ingest {

bool SniffNcclTestsJson(std::string_view head);
Status ParseNcclTestsJson(const FileText& file, Job& job);

}  // namespace commdx::ingest
