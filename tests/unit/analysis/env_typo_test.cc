// "Did you mean": a variable name within two edits of a known one is flagged as a typo.
#include <gtest/gtest.h>

#include <string>

#include "analysis/env_nccl_vars.h"

namespace commdx::analysis {
namespace {

bool Suggests(const std::string& name, const std::string& known) {
  Job job;
  VarVerdict v = ClassifyVariable(name, "1", job);
  return !v.known && v.what.find("did you mean " + known + "?") != std::string::npos;
}

TEST(EnvTypo, OneOrTwoEditsAreTypos) {
  EXPECT_TRUE(Suggests("NCCL_P2P_DISABLED", "NCCL_P2P_DISABLE"));   // one inserted
  EXPECT_TRUE(Suggests("NCCL_P2P_DISABL", "NCCL_P2P_DISABLE"));     // one deleted
  EXPECT_TRUE(Suggests("NCCL_P2P_DISAPLE", "NCCL_P2P_DISABLE"));    // one replaced
  EXPECT_TRUE(Suggests("NCCL_P2P_DISABEL", "NCCL_P2P_DISABLE"));    // two letters swapped
  EXPECT_TRUE(Suggests("NCL_P2P_DISABLEE", "NCCL_P2P_DISABLE"));    // one each end
  EXPECT_TRUE(Suggests("XNCCL_P2P_DISABLEX", "NCCL_P2P_DISABLE"));  // two inserted
}

TEST(EnvTypo, ThreeEditsOrUnrelatedNamesAreNot) {
  Job job;
  for (const char* name : {"NCCL_P2P_DXSXBXE", "XXNCCL_P2P_DISABLEX", "NCCL_VAR_12345", "N",
                           "NCCL_P2P_DISABLE_THE_REST_OF_IT"}) {
    VarVerdict v = ClassifyVariable(name, "1", job);
    EXPECT_FALSE(v.known) << name;
    EXPECT_EQ(v.what.find("did you mean"), std::string::npos) << name << ": " << v.what;
  }
  EXPECT_TRUE(ClassifyVariable("NCCL_P2P_DISABLE", "1", job).known);
}

}  // namespace
}  // namespace commdx::analysis
