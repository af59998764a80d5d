// Sorting data that is nearly in order already (trace events, ids assigned in time order).
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace commdx {

// std::stable_sort's result, by insertion while that is cheap: each element is moved past the
// greater ones before it. Once elements have been moved past more than 4n others in all, the
// rest is left to std::stable_sort (an insertion sort moves an element only past greater ones,
// so the partial result is still a stable rearrangement). O(n) for input in order but for
// local disorder; O(n log n) at worst.
template <class T, class Less>
void StableSortNearlySorted(std::vector<T>& v, Less less) {
  size_t moved = 0;
  const size_t budget = 4 * v.size() + 64;
  for (size_t i = 1; i < v.size(); ++i) {
    if (!less(v[i], v[i - 1])) continue;
    T x = v[i];
    size_t j = i;
    for (; j > 0 && less(x, v[j - 1]); --j) v[j] = v[j - 1];
    v[j] = x;
    moved += i - j;
    if (moved > budget) {
      std::stable_sort(v.begin(), v.end(), less);
      return;
    }
  }
}

}  // namespace commdx
