#include "base/write_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace commdx {

namespace {

Error OsError(ErrorCode code, const std::string& what, int errnum, const std::string& path) {
  return MakeError(code, what + ": " + std::strerror(errnum), {path});
}

// Where the bytes go: the target of a symbolic link, so that the link is kept.
std::string Resolved(const std::string& path) {
  char buf[PATH_MAX];
  if (realpath(path.c_str(), buf)) return buf;
  return path;
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

mode_t NewFileMode() {
  mode_t mask = umask(0);  // read it back: there is no other way
  umask(mask);
  return 0666 & ~mask;
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

Status WriteFileAtomically(const std::string& path, std::string_view data) {
  const std::string target = Resolved(path);
  struct stat st {};
  const bool exists = stat(target.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode))
    return MakeError(ErrorCode::kUsage, "cannot write the output: is a folder", {path});
  if (exists && !S_ISREG(st.st_mode)) return WriteInPlace(target, data);
  size_t slash = target.rfind('/');
  std::string dir = slash == std::string::npos ? "." : target.substr(0, slash + 1);
  std::string base = slash == std::string::npos ? target : target.substr(slash + 1);
  std::string tmp = (dir == "." ? "" : dir) + "." + base + ".commdx-XXXXXX";
  int fd = mkstemp(tmp.data());
  if (fd < 0) return OsError(ErrorCode::kUsage, "cannot create the output", errno, path);
  fchmod(fd, exists ? (st.st_mode & 07777) : NewFileMode());
  int err = WriteAll(fd, data);
  if (!err && fsync(fd) != 0) err = errno;
  if (close(fd) != 0 && !err) err = errno;
  if (!err && rename(tmp.c_str(), target.c_str()) != 0) err = errno;
  if (err) {
    unlink(tmp.c_str());
    return OsError(ErrorCode::kEnvironment, "cannot write the output", err, path);
  }
  return Ok{};
}

}  // namespace commdx
