// Memory hints for the large, long-lived arrays of the model.
#pragma once

#include <cstddef>
#include <vector>

namespace commdx {

// Asks the kernel to back the whole 2 MiB pages inside [p, p + bytes) with transparent huge
// pages (Linux, where THP is in "madvise" or "always" mode): one page fault per 2 MiB instead
// of per 4 KiB as the array fills, and fewer TLB misses when it is read. A hint only: nothing
// happens elsewhere or when the kernel declines.
void AdviseHugePages(const void* p, size_t bytes);

// The same for a vector's reserved capacity (call it after reserve()).
template <class T>
void AdviseHugePages(const std::vector<T>& v) {
  AdviseHugePages(v.data(), v.capacity() * sizeof(T));
}

}  // namespace commdx
