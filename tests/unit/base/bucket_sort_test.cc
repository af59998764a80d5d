#include "base/bucket_sort.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

namespace commdx {
namespace {

// SortedOrder over `keys`, ties broken by a second key and then the index (as trace events
// are: start, then end, then file order), against std::sort by the same order.
void ExpectSortsLikeStdSort(const std::vector<int64_t>& keys, const std::vector<int>& second) {
  const size_t n = keys.size();
  auto less = [&](uint32_t a, uint32_t b) {
    if (keys[a] != keys[b]) return keys[a] < keys[b];
    if (second[a] != second[b]) return second[a] > second[b];
    return a < b;
  };
  const int64_t lo = *std::min_element(keys.begin(), keys.end());
  const int64_t hi = *std::max_element(keys.begin(), keys.end());
  std::vector<uint32_t> want(n);
  std::iota(want.begin(), want.end(), 0u);
  std::sort(want.begin(), want.end(), less);
  const std::vector<uint32_t> got =
      SortedOrder(n, [&](size_t i) { return keys[i]; }, less, lo, hi);
  ASSERT_EQ(got, want) << n << " keys in [" << lo << ", " << hi << "]";
}

TEST(BucketSort, SortsEveryClusteringOfKeysLikeAComparisonSort) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 300; ++round) {
    const size_t n = 1 + rng() % 5000;
    std::vector<int64_t> keys(n);
    std::vector<int> second(n);
    // Clusters: a few busy steps far apart, each dense (equal keys too), the way a profile
    // of a few steps or a grown trace has them; sometimes one key far out on either side.
    const int clusters = 1 + static_cast<int>(rng() % 6);
    const int64_t width = int64_t{1} << (rng() % 40);
    std::vector<int64_t> base(clusters);
    for (auto& b : base) b = static_cast<int64_t>(rng() % (uint64_t{1} << 61));
    for (size_t i = 0; i < n; ++i) {
      keys[i] = base[rng() % clusters] + static_cast<int64_t>(rng() % static_cast<uint64_t>(width));
      second[i] = static_cast<int>(rng() % 4);
    }
    if (round % 5 == 0) keys[rng() % n] = INT64_MIN + static_cast<int64_t>(rng() % 100);
    if (round % 7 == 0) keys[rng() % n] = INT64_MAX - static_cast<int64_t>(rng() % 100);
    if (round % 3 == 0) std::sort(keys.begin(), keys.begin() + static_cast<long>(n / 2));
    ExpectSortsLikeStdSort(keys, second);
  }
}

TEST(BucketSort, OneKeyOrTwoAreSortedByTheTieBreakAlone) {
  std::vector<int64_t> keys(3000, 5);
  std::vector<int> second(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) second[i] = static_cast<int>((i * 7919) % 13);
  ExpectSortsLikeStdSort(keys, second);
  for (size_t i = 0; i < keys.size(); i += 2) keys[i] = 6;
  ExpectSortsLikeStdSort(keys, second);
}

// A bucket of the first pass that holds most of the keys, spread within it: sorted by further
// counting passes over its own span, the result is still the comparison sort's.
TEST(BucketSort, AClusterBesideOneFarKeyIsSortedThroughItsOwnSpan) {
  std::mt19937_64 rng(11);
  std::vector<int64_t> keys(20000);
  std::vector<int> second(keys.size(), 0);
  for (auto& k : keys) k = 1'700'000'000'000'000'000 + static_cast<int64_t>(rng() % 1'000'000);
  keys[123] = 0;  // one event at time zero
  ExpectSortsLikeStdSort(keys, second);
}

}  // namespace
}  // namespace commdx
