// Importer for PyTorch profiler (Kineto) traces: .json or .json.gz, one file per rank, any era
// (integer µs since the epoch or fractional µs after baseTimeNanoseconds, "Kernel" or "kernel",
// int or string tids, ac2g or async_cpu_to_gpu flows, with or without distributedInfo).
#pragma once

#include <string>
#include <string_view>

#include "base/file.h"
#include "base/result.h"
#include "ingest/registry.h"
#include "ingest/trace_build/trace_set.h"  // FinishTraceSet, for the callers of the entries here
#include "model/job.h"

namespace commdx::ingest {

// Registry entry: recognises a trace by its content ("traceEvents" near the start, or the
// Kineto header keys).
bool SniffKineto(std::string_view head);

// Registry entry: one file streamed from disk (gzip inflated on the fly), its trace appended to
// part.trace. A broken file is the error, as file:line:col; JSON without "traceEvents" is read
// to the end and reported as not a trace.
Result<Streamed> StreamKineto(const std::string& path, const StreamOptions& options, Job& part);

// Registry entry: the same reader over a file already in memory (tests, fuzzers).
Status ParseKineto(const FileText& file, Job& job);

}  // namespace commdx::ingest
