// A pipe handed over (`-`, /dev/stdin, `<(...)`) can be read only once, so its start cannot be
// looked at and then read again like a file's. PipeInput reads its first bytes and keeps them:
// enough to recognise the format before the rest is read, so that junk piped in is refused
// after 64 KiB, not after gigabytes held in memory.
#pragma once

#include <cstddef>
#include <string>

#include "base/file.h"
#include "base/input_path.h"
#include "base/result.h"

namespace commdx::ingest {

class PipeInput {
 public:
  // Opens `path` and reads up to `bytes` of it (fewer when the pipe ends sooner).
  static Result<PipeInput> Open(const std::string& path, size_t bytes);

  // The text of the first bytes, for sniffing: inflated when the pipe carries gzip (as much as
  // the compressed head holds), UTF-16 converted.
  const std::string& head() const { return head_; }

  // Everything: the kept bytes and the rest of the pipe, as ReadFile would give it.
  Result<FileText> ReadRest();

 private:
  PipeInput(std::string path, OpenedInput in) : path_(std::move(path)), in_(std::move(in)) {}
  std::string path_;
  OpenedInput in_;
  std::string raw_;  // the bytes read so far, as they came
  std::string head_;
};

}  // namespace commdx::ingest
