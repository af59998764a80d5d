// The commdx binary's `operator new`: glibc's malloc, plus transparent huge pages for large
// blocks. The model's event arrays and the analyses' per-event vectors are written once from
// front to back right after they are allocated; with 4 KiB pages every 4 KiB of them costs a
// page fault, and a vector that outgrows its reserve() moves to a fresh block that no
// `madvise` made after the fact can reach before the move touches it. Advising at allocation
// time covers every large block, whoever allocates it (one madvise per block of >= 2 MiB,
// the smallest that can hold a whole huge page).
// Page faults of `commdx trace` on a 527 MB trace: 33.6 k -> 17.8 k (issue 21, 2026-12-02; the
// session's log is in the git history of docs/measurements/trace-ingest.md).
//
// Only the executable links this file (main_*.cc are not in the cli library): the libraries
// and the tests keep the standard operator, and so do the sanitizer builds (ASan replaces
// operator new to track allocations).
// `operator delete` stays the standard one, which frees with free().
#include <cstdlib>
#include <new>

#include "base/memory.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define COMMDX_KEEP_STD_NEW 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define COMMDX_KEEP_STD_NEW 1
#endif

#ifndef COMMDX_KEEP_STD_NEW

void* operator new(std::size_t n) {
  constexpr std::size_t kLarge = std::size_t{2} << 20;
  for (;;) {
    if (void* p = std::malloc(n ? n : 1)) {
      if (n >= kLarge) commdx::AdviseHugePages(p, n);
      return p;
    }
    std::new_handler handler = std::get_new_handler();
    if (!handler) throw std::bad_alloc();
    handler();
  }
}

#endif  // COMMDX_KEEP_STD_NEW
