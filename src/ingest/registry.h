// The one list of importers: adding a format is one entry here. Each recognises its format from
// the content (never the name). A text importer parses the whole file from memory; a streaming
// importer reads the file from disk itself (files in parallel) into a part of the Job that the
// loader merges. Structural errors are returned; bad records go to job.quality and are skipped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/file.h"
#include "base/result.h"
#include "ingest/window_reader.h"
#include "model/input_kind.h"
#include "model/job.h"

namespace commdx::ingest {

struct StreamOptions {
  size_t part_bytes = 1u << 20;  // a streaming reader's unit of work
};

// What a streaming importer read from one file.
struct Streamed {
  uint64_t bytes = 0;    // decompressed bytes read
  std::string not_ours;  // non-empty: the whole file read, and it is not this format after all
};

struct Importer {
  InputKind kind;
  const char* description;  // one line for --list
  // Console output often holds several text formats at once (nccl-tests run with NCCL_DEBUG=INFO
  // print their table between NCCL lines; nvidia-smi text gets pasted into the same log). An
  // importer that reads only its own lines says so, and every such importer that recognises a
  // file reads it.
  bool shares_file;
  // True if `head` (the first 64 KiB of the decompressed file) looks like this format.
  bool (*sniff)(std::string_view head);
  // The whole file from memory. Every importer has it (tests and fuzzers feed it bytes).
  Status (*parse)(const FileText& file, Job& job);
  // Optional: the file read from disk as it goes, into `part` (a Job of its own, so files can be
  // read in parallel). The loader uses it instead of `parse` when present.
  Result<Streamed> (*stream)(const std::string& path, const StreamOptions& options, Job& part);
  // Optional: run once after every file is read (e.g. ordering the traces by rank); importers
  // that feed one part of the Job share the function, and it runs once for all of them.
  void (*finish)(Job& job);
  // True when `parse` reads nothing of the Job it is given, only adds to it, and everything it
  // adds has a merge (job_merge.h): the loader then parses the file on a worker into an empty Job
  // of its own and merges the parts in file order, which gives the Job the files read one after
  // another would. Formats that fill the topology or the environment (snapshots, nvidia-smi
  // text, environment dumps) are read into the Job itself, in their turn.
  bool in_parts = false;
  // Optional, for line-oriented console text: a reader fed the file window by window, which the
  // loader uses when the file is too large to read whole (window_reader.h).
  WindowReaderFactory windows = nullptr;

  const char* name() const { return InputKindName(kind); }
};

// In the order they are tried: the most specific formats first.
const std::vector<Importer>& Importers();

const Importer* FindImporter(std::string_view name);
const Importer* FindImporter(InputKind kind);

// The importer whose sniff accepts `head`, or nullptr.
const Importer* SniffImporter(std::string_view head);

}  // namespace commdx::ingest
