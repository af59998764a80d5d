// What a path the user named is, before anything is read from it: a regular file, a folder, or a
// pipe a shell handed over (`-`, /dev/stdin, /dev/fd/N from `<(...)`). Devices and named FIFOs
// are refused at once, from stat alone (so /dev/zero is never read and a FIFO never blocks).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"

namespace commdx {

// An input opened for reading. Owns the descriptor.
class OpenedInput {
 public:
  OpenedInput() = default;
  OpenedInput(int fd, bool pipe, uint64_t size) : fd_(fd), pipe_(pipe), size_(size) {}
  OpenedInput(OpenedInput&& o) noexcept { *this = std::move(o); }
  OpenedInput& operator=(OpenedInput&& o) noexcept;
  ~OpenedInput();

  int fd() const { return fd_; }
  bool pipe() const { return pipe_; }      // read once, whole; size unknown
  uint64_t size() const { return size_; }  // regular files: size when opened
  int Release() { return std::exchange(fd_, -1); }

 private:
  int fd_ = -1;
  bool pipe_ = false;
  uint64_t size_ = 0;
};

// True for the names under which a shell hands over an already open pipe or terminal: "-",
// /dev/stdin, /dev/fd/N, /proc/self/fd/N.
bool IsHandedOverName(const std::string& path);

// Opens `path` ("-" is standard input) without blocking; refuses devices, sockets and named
// FIFOs (exit 3), and names the OS reason when it cannot be opened (ELOOP: a symbolic link loop).
Result<OpenedInput> OpenInput(const std::string& path);

// Why stat/open failed, in words: "no such file or folder", "symbolic link loop (...)", or the
// OS reason (strerror).
std::string OsReason(int errnum);

// Identity and state of a file: compared before and after a read to tell a file that changed
// while it was read, and to tell whether two names are the same file.
struct FileStamp {
  uint64_t dev = 0, ino = 0, size = 0;
  int64_t mtime_ns = 0;
  bool operator==(const FileStamp&) const = default;
  bool SameFile(const FileStamp& o) const { return dev == o.dev && ino == o.ino; }
};
// Follows symbolic links; nullopt when `path` cannot be stat'ed.
std::optional<FileStamp> StampOf(const std::string& path);

// One file found among the paths the user gave.
struct FoundFile {
  std::string path;
  bool named = false;  // given on the command line, not found in a folder
  bool pipe = false;   // a pipe handed over: read once, whole
};

// Something inside a folder that is not read, and why.
struct PathNote {
  std::string path;
  std::string reason;
  bool unreadable = false;  // a permission or I/O problem (an input-quality note), not a kind
};

struct ExpandedInputs {
  std::vector<FoundFile> files;    // in the order given, folders walked in sorted order
  std::vector<PathNote> notes;     // entries of folders not read (FIFOs, devices, unreadable)
  std::vector<PathNote> repeated;  // a file met again (same device and inode): read once
};

// Expands files and folders. Inside folders only regular files are kept (hidden entries, starting
// with '.', are skipped; links to folders are not followed). The same file met twice (named
// twice, inside a folder also named, through a link) is kept once. A named path that does not
// exist, or is a device or FIFO, is an error.
Result<ExpandedInputs> ExpandInputs(const std::vector<std::string>& paths);

}  // namespace commdx
