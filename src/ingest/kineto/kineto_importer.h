// Importer for PyTorch profiler (Kineto) traces: .json or .json.gz, one file per rank, any era
// (integer µs since the epoch or fractional µs after baseTimeNanoseconds, "Kernel" or "kernel",
// int or string tids, ac2g or async_cpu_to_gpu flows, with or without distributedInfo).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/file.h"
#include "base/result.h"
#include "ingest/kineto/trace_set.h"  // FinishTraceSet, for the callers of the entries here
#include "model/job.h"

namespace commdx::ingest {

// Registry entry: recognises a trace by its content ("traceEvents" near the start, or the
// Kineto header keys).
bool SniffKineto(std::string_view head);

// Registry entry: one file already in memory, appended to job.trace.
Status ParseKineto(const FileText& file, Job& job);

struct KinetoLoadOptions {
  int threads = 0;               // 0 = hardware concurrency
  size_t part_bytes = 1u << 20;  // see ReaderOptions
};

struct KinetoInput {
  std::string path;
  // Named by the user: parsed even if it does not look like a trace (so "not JSON" is an error
  // with its place). Files found in folders are sniffed and skipped when they are not traces.
  bool explicit_file = true;
};

// Streams each file from disk (gzip inflated on the fly), files in parallel, and adds every
// trace to job.trace; a file that is not a Kineto trace is listed in job.skipped. The first
// broken file (in the given order) is the error, as file:line:col.
Status LoadKinetoFiles(const std::vector<KinetoInput>& files, Job& job,
                       const KinetoLoadOptions& options = {});

}  // namespace commdx::ingest
