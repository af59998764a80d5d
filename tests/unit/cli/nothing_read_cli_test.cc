// Every command that reads files ends the same way when they gave nothing it needs: exit 3, one
// line on standard error naming the file and why, then what the command expected; several files
// are counted and named — through the real binary.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "unit/run_commdx.h"

namespace commdx {
namespace {

namespace fs = std::filesystem;

std::string Dir() {
  fs::path dir = fs::path(::testing::TempDir()) / "commdx_nothing_read_cli";
  fs::create_directories(dir);
  std::ofstream(dir / "empty.txt").close();
  std::ofstream(dir / "words.txt") << "nothing any importer reads\n";
  return dir.string();
}

TEST(NothingReadCli, OneFileIsNamedWithItsReasonByEveryCommand) {
  const std::string file = Dir() + "/empty.txt";
  struct Case {
    const char* command;
    const char* expected;  // "" where the reason says what to do
  };
  for (const Case& c : {Case{"diagnose", "; expected a profiler trace, NCCL log"}, Case{"logs", ""},
                        Case{"topo", "; expected `nvidia-smi topo -m`"},
                        Case{"env --from", "; expected a snapshot from `commdx env --save`"}}) {
    auto r = test_util::RunCommdx(std::string(c.command) + " " + file, true);
    EXPECT_EQ(r.code, 3) << c.command << ": " << r.out;
    EXPECT_EQ(r.out.rfind("commdx: " + file + ": error: empty file" + c.expected, 0), 0u)
        << c.command << ": " << r.out;
    EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << c.command << ": one line\n" << r.out;
  }
}

TEST(NothingReadCli, SeveralFilesAreCountedAndNamed) {
  const std::string dir = Dir();
  for (const char* command : {"diagnose", "logs", "trace", "topo"}) {
    auto r = test_util::RunCommdx(std::string(command) + " " + dir, true);
    EXPECT_EQ(r.code, 3) << command << ": " << r.out;
    EXPECT_EQ(r.out.rfind("commdx: " + dir + ": error: none of the 2 files given holds ", 0), 0u)
        << command << ": " << r.out;
    EXPECT_NE(r.out.find("\n  " + dir + "/empty.txt: "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\n  " + dir + "/words.txt: "), std::string::npos) << r.out;
  }
}

}  // namespace
}  // namespace commdx
