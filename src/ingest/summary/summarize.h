// Making a summary (`commdx summarize`): reads the inputs as `commdx diagnose` would, without the
// steps that join files together (those run when the summaries are read), and writes what it read
// as one summary document (summary_format.h, docs/summary-format.md).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/result.h"
#include "model/job.h"

namespace commdx::ingest::summary {

struct SummarizeOptions {
  int threads = 0;           // files read in parallel; 0 = one a core
  std::string tool_version;  // written into the header
  // Digests each trace rank where it is read (LoadOptions::rank_built) and frees its events: a
  // summary holds the digest (digest_codec.h), not the events.
  std::function<void(RankTrace&)> rank_built;
};

struct Summary {
  std::string json;        // the document, uncompressed
  std::vector<int> ranks;  // the ranks of its traces, in order
  size_t traces = 0, texts = 0;
  uint64_t read_bytes = 0;   // the bytes of the inputs it holds, decompressed
  uint64_t trace_bytes = 0;  // of which traces
  // Recognised, but of a format a summary does not carry (environment dumps, snapshots,
  // nvidia-smi text): gather them beside the summaries.
  std::vector<SkippedInput> left_out;
};

// Errors: what LoadInputs returns (nothing found, the one file broken), and "nothing a summary
// carries" when no input is of a carried format.
Result<Summary> Summarize(const std::vector<std::string>& paths, const SummarizeOptions& options);

// `data` as a gzip member (what `gzip -6` writes).
std::string Gzip(std::string_view data);

}  // namespace commdx::ingest::summary
