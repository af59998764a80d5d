// A temporary file that a kill does not leave behind: while it exists, SIGINT, SIGTERM and SIGHUP
// remove it before the process dies of the signal, and SIGXFSZ (`ulimit -f`) is ignored so that
// the write fails with EFBIG and is cleaned up like any failed write.
#pragma once

#include <signal.h>

#include <string>

#include "base/result.h"

namespace commdx {

// Creates `dir` + "." + `base` + ".commdx-XXXXXX" (hidden, in the folder of the file it will
// replace, so that rename() stays on one file system) and registers it: a handler for SIGINT,
// SIGTERM and SIGHUP (those not ignored) unlinks it with async-signal-safe calls, puts the
// handler that was there back and raises the signal again, so the exit status still says which
// signal ended the process. The destructor removes the file unless Keep() was called (after a
// rename, or to leave the data for the user) and puts the previous handlers back. One at a time
// per process (a second is refused with kInternal); signals are blocked while it is registered
// or released, so no signal finds the path half-written.
class TempFile {
 public:
  static Result<TempFile> Create(const std::string& dir, const std::string& base);

  TempFile(TempFile&& o) noexcept;
  TempFile& operator=(TempFile&&) = delete;
  TempFile(const TempFile&) = delete;
  ~TempFile();

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  // Closes the descriptor; returns 0 or the errno of close().
  int Close();
  // The file is no longer removed (renamed into place, or kept on purpose); unregisters it.
  void Keep();

 private:
  TempFile(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  int fd_ = -1;
  std::string path_;
  bool owned_ = true;
};

// Blocks SIGINT, SIGTERM and SIGHUP in this thread for its lifetime: what must not be cut off
// halfway (rewriting a file in place) runs first, then a signal that came meanwhile is delivered.
class FatalSignalsBlocked {
 public:
  FatalSignalsBlocked();
  ~FatalSignalsBlocked();
  FatalSignalsBlocked(const FatalSignalsBlocked&) = delete;
  FatalSignalsBlocked& operator=(const FatalSignalsBlocked&) = delete;

 private:
  sigset_t old_;
};

}  // namespace commdx
