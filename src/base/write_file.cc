#include "base/write_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "base/temp_file.h"

namespace commdx {

namespace {

Error OsError(ErrorCode code, const std::string& what, int errnum, const std::string& path) {
  return MakeError(code, what + ": " + std::strerror(errnum), {path});
}

// Writes into something that is not a regular file, as it is.
Status WriteInPlace(const std::string& path, std::string_view data) {
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return OsError(ErrorCode::kUsage, "cannot open the output", errno, path);
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  int err = WriteAll(fd, data);
  if (close(fd) != 0 && !err) err = errno;
  if (err) return OsError(ErrorCode::kEnvironment, "cannot write the output", err, path);
  return Ok{};
}

// Rewrites a regular file through its own inode (hard links and owner kept). Returns 0 or errno.
int RewriteInPlace(const std::string& target, std::string_view data) {
  int fd = open(target.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) return errno;
  int err = WriteAll(fd, data);
  if (!err && fsync(fd) != 0) err = errno;
  if (close(fd) != 0 && !err) err = errno;
  return err;
}

mode_t NewFileMode() {
  mode_t mask = umask(0);  // read it back: there is no other way
  umask(mask);
  return 0666 & ~mask;
}

// Writes to a descriptor this process already has open (standard output, a `>(...)` pipe).
Status WriteDescriptor(int fd, std::string_view data, const std::string& path) {
  std::fflush(stdout);
  std::fflush(stderr);
  int err = WriteAll(fd, data);
  if (err == EPIPE || !err) return Ok{};  // a reader that has gone (`| head`) is not an error
  return OsError(ErrorCode::kEnvironment,
                 fd == STDOUT_FILENO ? "cannot write to standard output" : "cannot write the output",
                 err, path);
}

// The descriptor a path names when it names one of this process's own: /dev/stdout,
// /dev/stderr, /dev/fd/N, /proc/self/fd/N. Opening such a path again would give a new file
// description: for a file the shell opened to append to (`>> log`), one that writes from its
// start, and replacing it through a temporary file would lose what was there. -1 for others.
int NamedDescriptor(const std::string& path) {
  if (path == "/dev/stdout") return STDOUT_FILENO;
  if (path == "/dev/stderr") return STDERR_FILENO;
  for (const char* prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    const size_t n = std::strlen(prefix);
    if (path.compare(0, n, prefix) != 0 || path.size() == n || path.size() > n + 9) continue;
    int fd = 0;
    for (size_t i = n; i < path.size(); ++i) {
      if (path[i] < '0' || path[i] > '9') return -1;
      fd = fd * 10 + (path[i] - '0');
    }
    return fd;
  }
  return -1;
}

std::string ModeText(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

}  // namespace

int WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return 0;
}

Result<std::string> OutputTarget(const std::string& path) {
  std::string p = path;
  for (int hops = 0; hops < 40; ++hops) {  // the kernel's own limit (MAXSYMLINKS)
    struct stat st {};
    if (lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    std::string to(static_cast<size_t>(st.st_size > 0 ? st.st_size : 4096) + 1, '\0');
    ssize_t n = readlink(p.c_str(), to.data(), to.size());
    if (n < 0) return OsError(ErrorCode::kUsage, "cannot read the symbolic link", errno, path);
    to.resize(static_cast<size_t>(n));
    size_t slash = p.rfind('/');
    p = to.front() == '/' || slash == std::string::npos ? to : p.substr(0, slash + 1) + to;
  }
  return OsError(ErrorCode::kUsage, "cannot write the output", ELOOP, path);
}

Status WriteFileAtomically(const std::string& path, std::string_view data,
                           const WriteOptions& options) {
  if (path == "-") return WriteDescriptor(STDOUT_FILENO, data, "-");
  if (int fd = NamedDescriptor(path); fd >= 0) {
    if (fcntl(fd, F_GETFD) < 0)
      return OsError(ErrorCode::kUsage, "cannot write the output", EBADF, path);
    return WriteDescriptor(fd, data, path);
  }
  COMMDX_ASSIGN_OR_RETURN(const std::string target, OutputTarget(path));
  struct stat st {};
  const bool exists = stat(target.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode))
    return MakeError(ErrorCode::kUsage, "cannot write the output: is a folder", {path});
  if (exists && !S_ISREG(st.st_mode)) return WriteInPlace(target, data);
  // Root may write anything: the mode bits say what the user meant.
  const bool read_only = exists && ((st.st_mode & 0222) == 0 || access(target.c_str(), W_OK) != 0);
  if (read_only && !options.force)
    return MakeError(ErrorCode::kUsage,
                     "refusing to replace a file that is not writable (mode " +
                         ModeText(st.st_mode) + "); --force replaces it",
                     {path});
  size_t slash = target.rfind('/');
  std::string dir = slash == std::string::npos ? "" : target.substr(0, slash + 1);
  std::string base = slash == std::string::npos ? target : target.substr(slash + 1);
  if (exists && !read_only && access(dir.empty() ? "." : dir.c_str(), W_OK) != 0) {
    // A writable file in a folder the user may not add to (a shared project folder): no
    // temporary file can be made there, so the file is rewritten in place, signals held back.
    FatalSignalsBlocked blocked;
    if (int e = RewriteInPlace(target, data); e != 0)
      return OsError(ErrorCode::kEnvironment, "cannot write the output", e, path);
    return Ok{};
  }
  auto tmp = TempFile::Create(dir, base);
  if (!tmp)
    return MakeError(tmp.error().code, "cannot create the output: " + tmp.error().message, {path});
  fchmod(tmp->fd(), exists ? (st.st_mode & 07777) : NewFileMode());
  // Renaming gives the path a new inode: its other hard links would keep the old report, and an
  // owner we cannot give the new file would change. Those files are rewritten in place instead
  // (not if read-only: --force may replace what it could not open for writing).
  bool in_place = false;
  if (exists && !read_only)
    in_place = st.st_nlink > 1 || fchown(tmp->fd(), st.st_uid, st.st_gid) != 0;
  else if (exists)
    (void)!fchown(tmp->fd(), st.st_uid, st.st_gid);  // kept where the OS allows
  int err = WriteAll(tmp->fd(), data);
  if (!err && fsync(tmp->fd()) != 0) err = errno;
  if (int close_err = tmp->Close(); !err) err = close_err;
  if (!err && !in_place && rename(tmp->path().c_str(), target.c_str()) != 0) err = errno;
  if (err) return OsError(ErrorCode::kEnvironment, "cannot write the output", err, path);
  if (!in_place) {
    tmp->Keep();  // renamed: it is the output now
    return Ok{};
  }
  int e = 0;
  {
    FatalSignalsBlocked blocked;  // a kill now would leave the file cut off: it waits
    e = RewriteInPlace(target, data);
  }
  if (e != 0) {
    tmp->Keep();
    return MakeError(ErrorCode::kEnvironment,
                     std::string("cannot write the output: ") + std::strerror(e) +
                         "; the whole output is in " + tmp->path(),
                     {path});
  }
  return Ok{};
}

}  // namespace commdx
