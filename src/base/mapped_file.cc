#include "base/mapped_file.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <utility>

namespace commdx {

namespace {

// The mappings the SIGBUS handler may repair. A signal handler can only reach globals; the table
// is lock-free (atomics) so that the handler never waits on a lock its own thread holds.
struct Slot {
  std::atomic<uintptr_t> start{0};
  std::atomic<uintptr_t> end{0};
  std::atomic<bool> cut{false};
};
constexpr int kSlots = 256;  // mappings alive at once: one per file being read, per thread
Slot g_slots[kSlots];
struct sigaction g_previous;

void OnSigbus(int sig, siginfo_t* info, void* ctx) {
  const auto addr = reinterpret_cast<uintptr_t>(info->si_addr);
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  for (auto& s : g_slots) {
    uintptr_t start = s.start.load(), end = s.end.load();
    if (start == 0 || addr < start || addr >= end) continue;
    uintptr_t from = addr / page * page;
    void* p = mmap(reinterpret_cast<void*>(from), end - from, PROT_READ,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (p != MAP_FAILED) {
      s.cut.store(true);
      return;  // the faulting read runs again and sees zeros
    }
    break;
  }
  // Not ours (or not repairable): behave as before this handler was installed.
  if (g_previous.sa_flags & SA_SIGINFO) {
    if (g_previous.sa_sigaction) return g_previous.sa_sigaction(sig, info, ctx);
  } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
    return g_previous.sa_handler(sig);
  }
  signal(SIGBUS, SIG_DFL);  // returning re-runs the access, which now ends the process
}

void InstallOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_sigaction = &OnSigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &g_previous);
  });
}

int Register(char* data, size_t size) {
  for (int i = 0; i < kSlots; ++i) {
    uintptr_t expected = 0;
    auto start = reinterpret_cast<uintptr_t>(data);
    if (g_slots[i].start.compare_exchange_strong(expected, start)) {
      g_slots[i].cut.store(false);
      g_slots[i].end.store(start + size);
      return i;
    }
  }
  return -1;
}

}  // namespace

Result<MappedFile> MappedFile::Map(int fd, size_t size, const std::string& name) {
  InstallOnce();
  void* p = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED)
    return MakeError(ErrorCode::kBadInput, std::string("cannot map: ") + std::strerror(errno),
                     {name});
  MappedFile m;
  m.data_ = static_cast<char*>(p);
  m.size_ = size;
  m.slot_ = Register(m.data_, size);
  if (m.slot_ < 0)  // no room to guard it: the caller reads the file instead
    return MakeError(ErrorCode::kInternal, "too many files mapped at once", {name});
  return m;
}

MappedFile::MappedFile(MappedFile&& o) noexcept { *this = std::move(o); }

MappedFile& MappedFile::operator=(MappedFile&& o) noexcept {
  if (this != &o) {
    Reset();
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
    slot_ = std::exchange(o.slot_, -1);
  }
  return *this;
}

MappedFile::~MappedFile() { Reset(); }

bool MappedFile::cut_short() const { return slot_ >= 0 && g_slots[slot_].cut.load(); }

void MappedFile::Reset() {
  if (slot_ >= 0) {
    g_slots[slot_].end.store(0);
    g_slots[slot_].start.store(0);
  }
  if (data_) munmap(data_, size_);
  data_ = nullptr;
  size_ = 0;
  slot_ = -1;
}

}  // namespace commdx
