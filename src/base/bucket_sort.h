// Sorting many items by a 64-bit integer key (trace events by start time) with counting passes
// instead of comparisons.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace commdx {

namespace detail {

// How many buckets a counting pass over `n` keys spread over `span` uses (a power of two, at
// least 16 and about n/4), and the right shift that takes a key's distance from the smallest
// to its bucket.
inline std::pair<size_t, int> BucketsFor(size_t n, uint64_t span) {
  size_t buckets = 16;
  while (buckets < n / 4) buckets *= 2;
  int shift = 0;
  while ((span >> shift) >= buckets) ++shift;  // ends by 60: buckets >= 16
  return {buckets, shift};
}

using Keyed = std::pair<int64_t, uint32_t>;  // a key and the index it belongs to

// Sorts [first, last) by key, equal keys by `less` on their indices; `tmp` holds as many.
// Each counting pass splits the range by time into buckets of ~4, so a bucket that is still
// large has its keys clustered in a narrower span: it is split again over that span, until
// buckets are small or hold one key. Each pass narrows the span 16-fold at least: at most 16
// levels.
template <class Less>
void SortKeyed(Keyed* first, Keyed* last, Keyed* tmp, const Less& less) {
  const auto n = static_cast<size_t>(last - first);
  auto before = [&less](const Keyed& x, const Keyed& y) {
    return x.first != y.first ? x.first < y.first : less(x.second, y.second);
  };
  if (n <= 32) {  // insertion sort
    for (Keyed* i = first + 1; i < last; ++i) {
      const Keyed x = *i;
      Keyed* j = i;
      for (; j > first && before(x, j[-1]); --j) *j = j[-1];
      *j = x;
    }
    return;
  }
  int64_t lo = first->first, hi = lo;
  for (const Keyed* i = first + 1; i < last; ++i) {
    lo = std::min(lo, i->first);
    hi = std::max(hi, i->first);
  }
  if (lo == hi) {  // one key: the order is `less`'s alone
    std::sort(first, last, [&less](const Keyed& x, const Keyed& y) { return less(x.second, y.second); });
    return;
  }
  const auto [buckets, shift] = BucketsFor(n, static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo));
  auto bucket_of = [lo, shift = shift](int64_t key) {
    return static_cast<size_t>((static_cast<uint64_t>(key) - static_cast<uint64_t>(lo)) >> shift);
  };
  std::vector<uint32_t> next(buckets + 1, 0);  // bucket b goes to tmp[next[b]...)
  for (const Keyed* i = first; i < last; ++i) ++next[bucket_of(i->first) + 1];
  for (size_t b = 0; b < buckets; ++b) next[b + 1] += next[b];
  for (const Keyed* i = first; i < last; ++i) tmp[next[bucket_of(i->first)]++] = *i;
  std::copy(tmp, tmp + n, first);
  // Now next[b] is where bucket b ends (and b + 1 begins).
  uint32_t begin = 0;
  for (size_t b = 0; b < buckets; ++b) {
    if (next[b] - begin > 1) SortKeyed(first + begin, first + next[b], tmp, less);
    begin = next[b];
  }
}

}  // namespace detail

// The indices 0..n sorted by `less`, a strict total order on indices that starts by comparing
// key_of(i); `lo` and `hi` bound the keys. The indices are distributed by key into ~n/4
// buckets of equal width (a stable counting pass: bucket order is key order) and each bucket
// is then sorted on its own: O(n) passes instead of a comparison sort's log n (a merge sort of
// 4 M trace events took ~20% of ingest). Only the 4-byte indices are moved, so the sort needs
// little memory that was never touched (on a VM each fresh page costs a fault, and trace
// events' own keys would be 6x the indices). Keys cluster (busy steps between idle gaps, one
// event far out), which makes some buckets large: a bucket of more than 16 is sorted as (key,
// index) pairs, in buffers the size of the largest such bucket, by counting passes over its
// own span again. Any sort by `less` gives this order: it leaves no ties.
template <class KeyOf, class Less>
std::vector<uint32_t> SortedOrder(size_t n, KeyOf key_of, Less less, int64_t lo, int64_t hi) {
  std::vector<uint32_t> out(n);
  if (n < 64) {
    for (size_t i = 0; i < n; ++i) out[i] = static_cast<uint32_t>(i);
    std::sort(out.begin(), out.end(), less);
    return out;
  }
  const auto [buckets, shift] = detail::BucketsFor(n, static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo));
  // Each index's bucket, kept: the distribution pass then reads 4 bytes per index instead of
  // the keys again.
  std::vector<uint32_t> bucket(n);
  std::vector<uint32_t> next(buckets + 1, 0);  // bucket b's indices go to out[next[b]...)
  for (size_t i = 0; i < n; ++i) {
    const uint64_t from_lo = static_cast<uint64_t>(key_of(i)) - static_cast<uint64_t>(lo);
    const auto b = static_cast<uint32_t>(from_lo >> shift);
    bucket[i] = b;
    ++next[b + 1];
  }
  for (size_t b = 0; b < buckets; ++b) next[b + 1] += next[b];
  for (size_t i = 0; i < n; ++i) out[next[bucket[i]]++] = static_cast<uint32_t>(i);
  // Now next[b] is where bucket b ends (and b + 1 begins).
  uint32_t* begin = out.data();
  std::vector<detail::Keyed> keyed, tmp;  // reused from bucket to bucket
  for (size_t b = 0; b < buckets; ++b) {
    uint32_t* end = out.data() + next[b];
    if (end - begin <= 16) {  // insertion sort: most buckets hold a handful
      for (uint32_t* i = begin + 1; i < end; ++i) {
        uint32_t x = *i;
        uint32_t* j = i;
        for (; j > begin && less(x, j[-1]); --j) *j = j[-1];
        *j = x;
      }
    } else {
      keyed.clear();
      for (const uint32_t* i = begin; i < end; ++i) keyed.emplace_back(key_of(*i), *i);
      tmp.resize(keyed.size());
      detail::SortKeyed(keyed.data(), keyed.data() + keyed.size(), tmp.data(), less);
      for (const auto& k : keyed) *begin++ = k.second;
    }
    begin = end;
  }
  return out;
}

}  // namespace commdx
