// Importer for NCCL debug logs (NCCL_DEBUG=INFO/WARN), NCCL 2.2 to 2.30: one file per process,
// all ranks interleaved in one file, or NCCL lines mixed into application output with launcher
// prefixes. Lines of known kinds fill job.nccl; NCCL lines that cannot be read, or of kinds it
// does not know, are counted in job.quality. A file without any NCCL line leaves
// job.nccl.nccl_lines unchanged (the caller decides whether that is an error).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "base/file.h"
#include "base/result.h"
#include "ingest/window_reader.h"
#include "model/job.h"

namespace commdx::ingest {

bool SniffNcclLog(std::string_view head);
Status ParseNcclLog(const FileText& file, Job& job);
// The same, for callers that hold the text already (tests, benchmarks, the sniffer).
void ParseNcclLogText(const FileText& file, Job& job);
// The same, window by window, for a log too large to hold (window_reader.h).
std::unique_ptr<WindowReader> NcclLogWindows(const std::string& path, Job& job);

}  // namespace commdx::ingest
