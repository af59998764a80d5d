#include <gtest/gtest.h>

#include "diagnose/diagnosis.h"

namespace commdx::diagnose {
namespace {

Finding F(std::string id, Severity s, std::optional<double> cost = std::nullopt, double conf = 1) {
  Finding f;
  f.id = std::move(id);
  f.severity = s;
  f.cost_ns_per_step = cost;
  f.confidence = conf;
  return f;
}

TEST(RankFindings, SeverityThenCostThenConfidence) {
  std::vector<Finding> v = {F("a", Severity::kInfo), F("b", Severity::kWarning, 1e6),
                            F("c", Severity::kWarning, 5e6), F("d", Severity::kError, std::nullopt, 0.5),
                            F("e", Severity::kWarning, 5e6, 0.9)};
  RankFindings(v);
  std::vector<std::string> ids;
  for (auto& f : v) ids.push_back(f.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"d", "c", "e", "b", "a"}));
}

TEST(MergeDuplicates, KeepsOneWithUnionOfEvidence) {
  auto a = F("comm.nccl_warn", Severity::kWarning);
  a.refs.push_back({{"x.log", 1}, "one"});
  auto b = a;
  b.refs[0].text = "two";
  b.severity = Severity::kError;
  auto merged = MergeDuplicates({a, b});
  ASSERT_EQ(merged.size(), 1u);
  EXPECT_EQ(merged[0].refs.size(), 2u);
  EXPECT_EQ(merged[0].severity, Severity::kError);
}

TEST(PickRootCause, NoneWhenOnlyInfo) {
  EXPECT_FALSE(PickRootCause({F("trace.pattern", Severity::kInfo)}));
  auto rc = PickRootCause({F("comm.socket_fallback", Severity::kError)});
  ASSERT_TRUE(rc);
  EXPECT_EQ(rc->id, "comm.socket_fallback");
}

}  // namespace
}  // namespace commdx::diagnose
