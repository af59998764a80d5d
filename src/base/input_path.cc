#include "base/input_path.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <tuple>
#include <utility>

namespace commdx {

namespace fs = std::filesystem;

OpenedInput& OpenedInput::operator=(OpenedInput&& o) noexcept {
  if (this != &o) {
    if (fd_ > 2) close(fd_);
    fd_ = std::exchange(o.fd_, -1);
    pipe_ = o.pipe_;
    size_ = o.size_;
  }
  return *this;
}

OpenedInput::~OpenedInput() {
  if (fd_ > 2) close(fd_);  // standard input is not ours to close
}

bool IsHandedOverName(const std::string& path) {
  return path == "-" || path == "/dev/stdin" || path.rfind("/dev/fd/", 0) == 0 ||
         path.rfind("/proc/self/fd/", 0) == 0;
}

std::string OsReason(int errnum) {
  if (errnum == ENOENT) return "no such file or folder";
  if (errnum == ELOOP) return "symbolic link loop (ELOOP: too many levels of symbolic links)";
  return std::strerror(errnum);
}

namespace {

// Why a file of this type is not read, or empty when it is read.
std::string RefusedType(mode_t mode, bool handed_over) {
  if (S_ISREG(mode)) return "";
  if (S_ISDIR(mode)) return "is a folder, expected a file";
  if (S_ISFIFO(mode))
    return handed_over
               ? ""
               : "is a named pipe (FIFO), not a file; pipe it in: `cat FIFO | commdx ... -`";
  if (S_ISCHR(mode) || S_ISBLK(mode))
    return std::string("is a ") + (S_ISCHR(mode) ? "character" : "block") +
           " device, not a file: commdx reads files, folders and pipes";
  if (S_ISSOCK(mode)) return "is a socket, not a file";
  return "is not a regular file";
}

struct Key {
  dev_t dev;
  ino_t ino;
  bool operator<(const Key& o) const { return std::tie(dev, ino) < std::tie(o.dev, o.ino); }
};

class Walker {
 public:
  explicit Walker(ExpandedInputs& out) : out_(out) {}

  // A regular file, once per (device, inode).
  void AddFile(const std::string& path, const struct stat& st, bool named) {
    auto [it, fresh] = seen_.emplace(Key{st.st_dev, st.st_ino}, path);
    if (!fresh) {
      out_.repeated.push_back({path, "the same file as " + it->second + ", read once"});
      return;
    }
    out_.files.push_back({path, named, false});
  }

  void Walk(const fs::path& dir) {
    std::error_code ec;
    fs::directory_iterator it(dir, ec), end;
    if (ec) return Unreadable(dir.string(), "cannot list folder: " + ec.message());
    std::vector<fs::path> entries;
    for (; it != end; it.increment(ec)) {
      if (ec) return Unreadable(dir.string(), "cannot list folder: " + ec.message());
      std::string name = it->path().filename().string();
      if (!name.empty() && name[0] != '.') entries.push_back(it->path());
    }
    std::sort(entries.begin(), entries.end());
    for (const auto& p : entries) Entry(p);
  }

 private:
  void Entry(const fs::path& p) {
    const std::string path = p.string();
    struct stat lst {
    }, st{};
    if (lstat(path.c_str(), &lst) != 0) return Unreadable(path, OsReason(errno));
    if (stat(path.c_str(), &st) != 0) {
      if (S_ISLNK(lst.st_mode)) return Skip(path, "broken symbolic link: " + OsReason(errno));
      return Unreadable(path, OsReason(errno));
    }
    if (S_ISDIR(st.st_mode)) {
      if (S_ISLNK(lst.st_mode)) return Skip(path, "symbolic link to a folder, not followed");
      return Walk(p);
    }
    if (!S_ISREG(st.st_mode)) return Skip(path, RefusedType(st.st_mode, false));
    AddFile(path, st, false);
  }
  void Unreadable(const std::string& path, std::string why) {
    out_.notes.push_back({path, std::move(why), true});
  }
  void Skip(const std::string& path, std::string why) {
    out_.notes.push_back({path, std::move(why), false});
  }

  ExpandedInputs& out_;
  std::map<Key, std::string> seen_;
};

}  // namespace

std::optional<FileStamp> StampOf(const std::string& path) {
  struct stat st {};
  if (stat(path == "-" ? "/dev/stdin" : path.c_str(), &st) != 0) return std::nullopt;
  return FileStamp{static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino),
                   static_cast<uint64_t>(st.st_size),
                   static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

Result<OpenedInput> OpenInput(const std::string& path) {
  const bool handed = IsHandedOverName(path);
  const std::string open_path = path == "-" ? "/dev/stdin" : path;
  struct stat st {};
  if (stat(open_path.c_str(), &st) != 0)
    return MakeError(ErrorCode::kBadInput, OsReason(errno), {path});
  if (std::string why = RefusedType(st.st_mode, handed); !why.empty())
    return MakeError(ErrorCode::kBadInput, why, {path});
  int fd = path == "-" ? STDIN_FILENO : open(open_path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return MakeError(ErrorCode::kBadInput, OsReason(errno), {path});
  OpenedInput guard(fd, false, 0);  // closes it on the error paths
  // Opened without blocking (a FIFO swapped in after stat must not hang); read blocking.
  if (fd != STDIN_FILENO) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  if (fstat(fd, &st) != 0) return MakeError(ErrorCode::kBadInput, OsReason(errno), {path});
  if (std::string why = RefusedType(st.st_mode, handed); !why.empty())
    return MakeError(ErrorCode::kBadInput, why, {path});
  bool pipe = !S_ISREG(st.st_mode);
  return OpenedInput(guard.Release(), pipe, pipe ? 0 : static_cast<uint64_t>(st.st_size));
}

Result<ExpandedInputs> ExpandInputs(const std::vector<std::string>& paths) {
  ExpandedInputs out;
  Walker walker(out);
  for (const auto& p : paths) {
    const bool handed = IsHandedOverName(p);
    struct stat st {};
    if (stat(p == "-" ? "/dev/stdin" : p.c_str(), &st) != 0)
      return MakeError(ErrorCode::kBadInput, OsReason(errno), {p});
    if (S_ISDIR(st.st_mode)) {
      walker.Walk(p);
      continue;
    }
    if (std::string why = RefusedType(st.st_mode, handed); !why.empty())
      return MakeError(ErrorCode::kBadInput, why, {p});
    if (S_ISREG(st.st_mode))  // also `< file` handed over as /dev/stdin
      walker.AddFile(p, st, true);
    else
      out.files.push_back({p, true, true});
  }
  return out;
}

}  // namespace commdx
