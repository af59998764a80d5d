// Memory hints for large blocks (used by the binary's operator new, cli/main_operator_new.cc).
#pragma once

#include <cstddef>

namespace commdx {

// Asks the kernel to back the whole 2 MiB pages inside [p, p + bytes) with transparent huge
// pages (Linux, where THP is in "madvise" or "always" mode): one page fault per 2 MiB instead
// of per 4 KiB as the array fills, and fewer TLB misses when it is read. A hint only: nothing
// happens elsewhere or when the kernel declines.
void AdviseHugePages(const void* p, size_t bytes);

}  // namespace commdx
