// A reader fed a text too large to hold whole, window by window (base/file_windows.h:
// ReadWindows): each window is whole lines that know where they sit in the file, and the reader
// keeps what it needs from one window to the next. Importers of line-oriented console text (NCCL
// logs, job logs) give one (Importer::windows); the loader uses it for a file over the limit of
// a file read whole.
#pragma once

#include <memory>
#include <string>

#include "base/file.h"
#include "model/job.h"

namespace commdx::ingest {

class WindowReader {
 public:
  virtual ~WindowReader() = default;
  // The next window, in file order.
  virtual void Read(const FileText& window) = 0;
  // After the last window: what the whole text gives is now in the Job.
  virtual void Finish() = 0;
};

// A reader of one importer for the file `path`, adding to `job`.
using WindowReaderFactory = std::unique_ptr<WindowReader> (*)(const std::string& path, Job& job);

}  // namespace commdx::ingest
