// The one list of importers. Each recognises its format from the content (never the name) and
// parses a whole file into the Job. Structural errors are returned; bad records go to
// job.quality and are skipped.
#pragma once

#include <string_view>
#include <vector>

#include "base/file.h"
#include "base/result.h"
#include "model/job.h"

namespace commdx::ingest {

struct Importer {
  const char* name;         // stable key, e.g. "nccl_log"
  const char* description;  // one line for --list
  // True if `head` (the first few KiB of the decompressed file) looks like this format.
  bool (*sniff)(std::string_view head);
  Status (*parse)(const FileText& file, Job& job);
};

// In the order they are tried: the most specific formats first.
const std::vector<Importer>& Importers();

const Importer* FindImporter(std::string_view name);

// The importer whose sniff accepts `head`, or nullptr.
const Importer* SniffImporter(std::string_view head);

}  // namespace commdx::ingest
