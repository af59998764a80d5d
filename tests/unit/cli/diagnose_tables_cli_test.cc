// diagnose shows what each source said, as the single-source command would: the benchmark
// tables for nccl-tests output (with the plateau and the efficiency against the link), and the
// topology and environment tables for snapshots — through the real binary's JSON.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

#include "unit/run_commdx.h"

namespace commdx {
namespace {

std::string Json(const std::string& args) {
  return test_util::RunCommdx(args + " --format json").out;
}

TEST(DiagnoseTables, NcclTestsOutputGetsTheBenchTablesAndSummary) {
  std::string f =
      std::string(COMMDX_SOURCE_DIR) + "/tests/data/h200x2_reference/nccl-tests-allreduce-base.txt";
  ASSERT_TRUE(std::filesystem::exists(f)) << "missing test data " << f;
  std::string j = Json("diagnose " + f);
  for (const char* key :
       {"\"bench_all_reduce_setup\"", "\"bench_all_reduce\"", "\"bench_all_reduce_summary\""})
    EXPECT_NE(j.find(key), std::string::npos) << key;
  // The plateau of the real 2xH200 run (median of the points within 5% of 346.2 GB/s).
  EXPECT_NE(j.find("\"plateau_busbw_gbps\": 343.8"), std::string::npos) << j.substr(0, 3000);
  EXPECT_NE(j.find("\"efficiency_percent\": 76"), std::string::npos);
}

TEST(DiagnoseTables, SnapshotsGetTheTopologyAndEnvironmentTables) {
  std::string dir = std::string(COMMDX_SOURCE_DIR) + "/tests/data/snapshot/";
  std::string j = Json("diagnose " + dir + "h200x2-topo.json " + dir + "h200x2-env.json");
  for (const char* key :
       {"\"gpus\"", "\"matrix\"", "\"pairs\"", "\"nccl_libraries\"", "\"variables\""})
    EXPECT_NE(j.find(key), std::string::npos) << key;
  EXPECT_NE(j.find("NV18"), std::string::npos);
  EXPECT_NE(j.find("2.28.9"), std::string::npos);
  // Topology and environment of one node: no warning that one replaced the other.
  EXPECT_EQ(j.find("topology_replaced"), std::string::npos);
}

}  // namespace
}  // namespace commdx
