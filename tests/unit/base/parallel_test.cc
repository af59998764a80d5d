#include "base/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <vector>

namespace commdx {
namespace {

TEST(ParallelFor, CallsEveryIndexOnceOnAnyThreadCount) {
  for (int threads : {0, 1, 2, 7, 64}) {
    for (size_t n : {size_t{0}, size_t{1}, size_t{5}, size_t{1000}}) {
      std::vector<std::atomic<int>> calls(n);
      ParallelFor(n, threads, [&](size_t i) { ++calls[i]; });
      for (size_t i = 0; i < n; ++i) EXPECT_EQ(calls[i].load(), 1) << threads << " " << n << " " << i;
    }
  }
}

TEST(ParallelFor, NeverMoreThreadsThanItems) {
  EXPECT_EQ(ThreadsFor(3, 16), 3u);
  EXPECT_EQ(ThreadsFor(0, 16), 1u);
  EXPECT_EQ(ThreadsFor(100, 4), 4u);
  EXPECT_GE(ThreadsFor(100, 0), 1u);
}

}  // namespace
}  // namespace commdx
