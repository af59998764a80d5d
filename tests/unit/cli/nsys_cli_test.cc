// `commdx trace` and `commdx diagnose` through the real binary on the real Nsight Systems export
// (tests/data/nsys/README.md): read as kind "nsys", the same trace tables and findings as a Kineto
// trace, and listed by `diagnose --list`.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "unit/run_commdx.h"

namespace commdx {
namespace {

namespace fs = std::filesystem;
using test_util::RunCommdx;

const std::string kExport =
    std::string(COMMDX_SOURCE_DIR) + "/tests/data/nsys/styles_healthy_iter_marks.sqlite.gz";

TEST(NsysCli, TraceReadsTheExport) {
  auto r = RunCommdx("trace " + kExport + " --format json");
  EXPECT_EQ(r.code, 0) << r.out.substr(0, 2000);
  EXPECT_NE(r.out.find("\"nsys\""), std::string::npos);
  EXPECT_NE(r.out.find("trace.launch_bound"), std::string::npos);
  EXPECT_NE(r.out.find("iteration_N"), std::string::npos);
}

TEST(NsysCli, DiagnoseFindsTheExportInAFolder) {
  fs::path dir = fs::path(::testing::TempDir()) / "commdx_nsys_cli";
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy_file(kExport, dir / "report.sqlite.gz");  // the name says nothing: content decides
  fs::copy_file(kExport, dir / "renamed.bin");
  auto r = RunCommdx("diagnose " + dir.string());
  EXPECT_EQ(r.code, 0) << r.out.substr(0, 2000);
  EXPECT_NE(r.out.find("trace.launch_bound"), std::string::npos) << r.out.substr(0, 2000);
  EXPECT_EQ(r.out.find("not a format commdx reads"), std::string::npos);
  fs::remove_all(dir);
}

TEST(NsysCli, ListNamesTheInput) {
  auto r = RunCommdx("diagnose --list");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("nsys"), std::string::npos);
  EXPECT_NE(r.out.find("Nsight Systems"), std::string::npos);
}

}  // namespace
}  // namespace commdx
