#include "base/temp_file.h"

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace commdx {

namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
constexpr size_t kNumSignals = sizeof kSignals / sizeof kSignals[0];

// The one piece of process-wide mutable state in base: a signal handler can reach nothing else.
// Written only with the signals blocked (Register/Unregister), read by the handler.
struct Registration {
  volatile sig_atomic_t active = 0;
  char path[PATH_MAX + 1] = {};
  struct sigaction old[kNumSignals] = {};
  bool installed[kNumSignals] = {};
  struct sigaction old_xfsz = {};
  bool xfsz_ignored = false;
};
Registration g_temp;

sigset_t HandledSignals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : kSignals) sigaddset(&set, sig);
  return set;
}

// Only async-signal-safe calls (unlink, sigaction, raise): signal-safety(7).
extern "C" void RemoveTempAndReraise(int sig) {
  const int saved_errno = errno;
  if (g_temp.active) {
    unlink(g_temp.path);
    g_temp.active = 0;
  }
  for (size_t i = 0; i < kNumSignals; ++i)
    if (kSignals[i] == sig && g_temp.installed[i]) {
      sigaction(sig, &g_temp.old[i], nullptr);
      g_temp.installed[i] = false;
    }
  // Pending until this handler returns, then delivered with the handler that was there before
  // (the default one kills the process, with the signal in its exit status).
  raise(sig);
  errno = saved_errno;
}

// With the signals blocked.
void InstallHandlers() {
  struct sigaction sa {};
  sa.sa_handler = RemoveTempAndReraise;
  sa.sa_mask = HandledSignals();
  sa.sa_flags = SA_RESTART;
  for (size_t i = 0; i < kNumSignals; ++i) {
    g_temp.installed[i] = false;
    if (sigaction(kSignals[i], nullptr, &g_temp.old[i]) != 0) continue;
    if (g_temp.old[i].sa_handler == SIG_IGN) continue;  // nohup: the signal never comes
    g_temp.installed[i] = sigaction(kSignals[i], &sa, nullptr) == 0;
  }
  // Past `ulimit -f`, write() fails with EFBIG (an error naming the reason) instead of SIGXFSZ
  // killing the process with the file half-written.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  g_temp.xfsz_ignored = sigaction(SIGXFSZ, &ignore, &g_temp.old_xfsz) == 0;
}

// With the signals blocked.
void Unregister() {
  g_temp.active = 0;
  for (size_t i = 0; i < kNumSignals; ++i)
    if (g_temp.installed[i]) {
      sigaction(kSignals[i], &g_temp.old[i], nullptr);
      g_temp.installed[i] = false;
    }
  if (g_temp.xfsz_ignored) sigaction(SIGXFSZ, &g_temp.old_xfsz, nullptr);
  g_temp.xfsz_ignored = false;
}

}  // namespace

FatalSignalsBlocked::FatalSignalsBlocked() {
  sigset_t set = HandledSignals();
  pthread_sigmask(SIG_BLOCK, &set, &old_);
}

FatalSignalsBlocked::~FatalSignalsBlocked() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }

Result<TempFile> TempFile::Create(const std::string& dir, const std::string& base) {
  std::string tmp = dir + "." + base + ".commdx-XXXXXX";
  if (tmp.size() >= sizeof g_temp.path)
    return MakeError(ErrorCode::kUsage, std::strerror(ENAMETOOLONG), {dir + base});
  FatalSignalsBlocked blocked;
  if (g_temp.active)
    return MakeError(ErrorCode::kInternal, "a temporary file is already being written",
                     {dir + base});
  int fd = mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) return MakeError(ErrorCode::kUsage, std::strerror(errno), {dir + base});
  std::memcpy(g_temp.path, tmp.c_str(), tmp.size() + 1);
  g_temp.active = 1;
  InstallHandlers();
  return TempFile(fd, std::move(tmp));
}

TempFile::TempFile(TempFile&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)),
      path_(std::move(o.path_)),
      owned_(std::exchange(o.owned_, false)) {}

int TempFile::Close() {
  if (fd_ < 0) return 0;
  int rc = close(std::exchange(fd_, -1));
  return rc == 0 ? 0 : errno;
}

void TempFile::Keep() {
  if (!owned_) return;
  FatalSignalsBlocked blocked;
  owned_ = false;
  Unregister();
}

TempFile::~TempFile() {
  Close();
  if (!owned_) return;
  FatalSignalsBlocked blocked;
  unlink(path_.c_str());
  Unregister();
}

}  // namespace commdx
