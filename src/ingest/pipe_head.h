// A pipe handed over (`-`, /dev/stdin, `<(...)`) can be read only once, so its start cannot be
// looked at and then read again like a file's. PipeInput reads its first bytes and keeps them:
// enough to recognise the format before the rest is read, so that junk piped in is refused
// after 64 KiB, not after gigabytes held in memory. A console log over the limit of a text held
// whole goes on in windows (ReadWindows) from the text already read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "base/file.h"
#include "base/file_windows.h"
#include "base/gzip_stream.h"
#include "base/input_path.h"
#include "base/result.h"

namespace commdx::ingest {

class PipeInput {
 public:
  // Opens `path` and reads up to `bytes` of it (fewer when the pipe ends sooner). Held by pointer:
  // its gzip reader reads the pipe through it.
  static Result<std::unique_ptr<PipeInput>> Open(const std::string& path, size_t bytes);

  // The text of the first bytes, for sniffing: inflated when the pipe carries gzip (as much as
  // the compressed head holds), UTF-16 converted.
  const std::string& head() const { return head_; }
  // The head was UTF-16, converted: text read in windows would not be.
  bool converted() const { return converted_; }

  // Everything: the kept bytes and the rest of the pipe, as ReadFile would give it (gzip inflated
  // as it comes). More than `max_bytes` of text is kTooLarge, naming the pipe; what was read is
  // then kept for ReadWindows.
  Result<FileText> ReadRest(uint64_t max_bytes);

  // After ReadRest found the text over its limit: that text, then the rest of the pipe, handed to
  // `visit` in windows of whole lines (base/file_windows.h ReadTextWindows). The text read before
  // is let go once handed over, so a pipe of any length costs the limit and two windows.
  WindowedRead ReadWindows(size_t window, const std::function<void(const FileText&)>& visit);

 private:
  PipeInput(std::string path, OpenedInput in) : path_(std::move(path)), in_(std::move(in)) {}
  // The pipe's next bytes (after those kept); 0 at its end.
  Result<size_t> ReadRaw(char* dst, size_t n);

  std::string path_;
  OpenedInput in_;
  std::string raw_;  // the first bytes, as they came
  std::string head_;
  bool converted_ = false;
  std::unique_ptr<GzipStream> gz_;  // a gzip pipe, inflated as read
  std::string text_;                // ReadRest's text, over the limit: the start of the windows
  uint64_t raw_bytes_ = 0;          // read from the pipe so far
};

}  // namespace commdx::ingest
