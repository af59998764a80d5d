// The hosts a benchmark's ranks ran on: more than one means the network carries the traffic, so
// the expected bandwidth is not the GPU's NVLink (analysis/bench_expected.h).
#include "model/bench_result.h"

#include <gtest/gtest.h>

namespace commdx {
namespace {

TEST(BenchRankGpus, HostCountIsDistinctNamedHosts) {
  EXPECT_EQ(HostCount({}), 0);
  EXPECT_EQ(HostCount({{0, "GPU-a", "0000:18:00.0", ""}}), 0);  // not known
  EXPECT_EQ(HostCount({{0, "GPU-a", "", "node1"}, {1, "GPU-b", "", "node1"}}), 1);
  EXPECT_EQ(HostCount({{0, "GPU-a", "", "node2"}, {1, "GPU-a", "", "node1"},
                       {2, "GPU-b", "", "node2"}, {3, "GPU-c", "", ""}}),
            2);
}

}  // namespace
}  // namespace commdx
