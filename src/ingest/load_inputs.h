// The one way in for files: turns the paths a user gave into one Job. Expands folders, reads the
// start of each file once to recognise its format by content, and hands it to every importer of
// the registry that recognises it (registry.h). Files are sniffed and read in parallel: streaming
// importers read their files from disk, and importers that read into parts (most formats) parse
// each file into a Job of its own, merged once, in file order (job_merge.h), so the Job is the
// same however many threads read it. Every command that reads files calls this.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "base/result.h"
#include "ingest/registry.h"
#include "model/input_kind.h"
#include "model/job.h"

namespace commdx::ingest {

struct LoadOptions {
  // Only these importers are used (empty = all). A file no allowed importer recognises is
  // listed as skipped.
  std::vector<InputKind> only;
  // A file named on the command line (not found in a folder) is read as the first kind of
  // `only` that recognises it, else as only.front() whatever it looks like, so a broken one is an
  // error with its place. With one kind, the file is not even looked at first.
  bool force_single = false;
  // These importers are not used, and the others are as without `only`: a file only they would
  // read is skipped as one no importer reads (`commdx summarize` leaves such files out).
  std::vector<InputKind> skip;
  int threads = 0;  // files sniffed and read in parallel; 0 = hardware concurrency
  // Run each importer's finish step (the trace set ordered by rank, ...). `commdx summarize`
  // leaves it to the run that reads the summaries, which finishes the files of every summary
  // together.
  bool finish = true;
  StreamOptions stream;
  // A text file is read whole up to this many bytes (0: DefaultMaxBytes(), base/file.h); an NCCL
  // log or job log over it is read in windows of `window_bytes` of whole lines instead, one held
  // at a time (base/file_windows.h; docs/inputs.md).
  uint64_t max_text_bytes = 0;
  size_t window_bytes = 32u << 20;
  // Called for each trace's rank on the worker that read it, right after the rank is built and
  // before it joins the Job (traces read on workers: PyTorch profiler traces, Nsight Systems
  // exports, summaries read in parts): the pipeline derives what the analyses need from the
  // rank's events there and may free them (RankTrace::derived), so a job's events need not be
  // held all at once.
  std::function<void(RankTrace&)> rank_built;
};

// One format only, as `commdx trace` reads: files named on the command line are read as `kind`
// whatever they look like; files found in folders only when they look like it.
LoadOptions ForcedKind(InputKind kind);
// The same with several kinds (`commdx trace` reads Kineto traces and Nsight Systems reports);
// a named file that none recognises is read as the first.
LoadOptions ForcedKinds(std::vector<InputKind> kinds);

// job.inputs and job.skipped keep the order of the files (folders walked in sorted order); the
// same file met twice is read once, commdx's own reports are skipped, pipes are read once whole
// (docs/inputs.md). A broken file (unreadable, truncated, changed while reading, over a limit) is
// the error only when it is the one input or nothing usable was read — then the first broken file
// of a streaming format, else the first in order; otherwise it is a `load.broken_input` error in
// job.quality and the rest is read. Each importer's finish step runs once, at the end.
Result<Job> LoadInputs(const std::vector<std::string>& paths, const LoadOptions& options = {});

}  // namespace commdx::ingest
