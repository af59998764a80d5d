// A summary text against its golden file: equal, or written when COMMDX_REGEN_GOLDEN is set (then
// review `git diff tests/golden`). For the golden tests that keep one summary per real input.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace commdx::test_util {

inline void ExpectGoldenSummary(const std::string& path, const std::string& got) {
  if (std::getenv("COMMDX_REGEN_GOLDEN") != nullptr) {
    std::ofstream(path) << got;
    return;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in) << "missing " << path << " (COMMDX_REGEN_GOLDEN=1 to write it)";
  std::stringstream want;
  want << in.rdbuf();
  EXPECT_EQ(got, want.str()) << "regenerate with COMMDX_REGEN_GOLDEN=1 and review the diff";
}

}  // namespace commdx::test_util
