// `commdx logs` output (text and JSON) on real logs, compared with the expected files under
// tests/golden/nccl_logs/expected (regenerate with tests/golden/regen.sh, review the diff).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "unit/run_commdx.h"

namespace {

struct Case {
  std::string name, dir, args;
  int exit_code = 0;
};

std::vector<Case> ReadCases() {
  std::ifstream in(std::string(COMMDX_SOURCE_DIR) + "/tests/golden/nccl_logs/cases.txt");
  std::vector<Case> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::stringstream ss(line);
    Case c;
    std::string rc;
    std::getline(ss, c.name, '|');
    std::getline(ss, c.dir, '|');
    std::getline(ss, rc, '|');
    std::getline(ss, c.args);
    c.exit_code = std::stoi(rc);
    const std::string var = "$SOURCE";
    if (c.dir.rfind(var, 0) == 0) c.dir = COMMDX_SOURCE_DIR + c.dir.substr(var.size());
    out.push_back(c);
  }
  return out;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::pair<std::string, int> RunCommdx(const Case& c, const std::string& format) {
  std::string cmd = "cd '" + c.dir + "' && NO_COLOR=1 '" + COMMDX_BINARY + "' logs --format " +
                    format + " " + c.args + " 2>&1";
  commdx::test_util::RunResult r = commdx::test_util::RunShell(cmd);
  return {r.out, r.code};
}

TEST(NcclLogGolden, OutputsMatchExpected) {
  auto cases = ReadCases();
  ASSERT_GE(cases.size(), 10u);
  std::string expected_dir = std::string(COMMDX_SOURCE_DIR) + "/tests/golden/nccl_logs/expected/";
  for (const auto& c : cases) {
    if (!std::filesystem::is_directory(c.dir)) {
      ADD_FAILURE() << c.name << ": missing test data folder " << c.dir;
      continue;
    }
    for (const char* fmt : {"text", "json"}) {
      SCOPED_TRACE(c.name + " " + fmt);
      auto [out, rc] = RunCommdx(c, fmt);
      EXPECT_EQ(rc, c.exit_code);
      std::string want = Slurp(expected_dir + c.name + (fmt[0] == 't' ? ".txt" : ".json"));
      EXPECT_EQ(out, want) << "output changed: run tests/golden/regen.sh <build dir> and review "
                              "`git diff tests/golden`";
    }
  }
}

}  // namespace
