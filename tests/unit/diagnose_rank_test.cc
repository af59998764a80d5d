#include <gtest/gtest.h>

#include <algorithm>

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
  std::vector<Finding> v = {
      F("a", Severity::kInfo), F("b", Severity::kWarning, 1e6), F("c", Severity::kWarning, 5e6),
      F("d", Severity::kError, std::nullopt, 0.5), F("e", Severity::kWarning, 5e6, 0.9)};
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
  std::vector<Finding> info = {F("trace.pattern", Severity::kInfo)};
  EXPECT_FALSE(PickRootCause(info));
  std::vector<Finding> sock = {F("comm.socket_fallback", Severity::kError)};
  auto rc = PickRootCause(sock);
  ASSERT_TRUE(rc);
  EXPECT_EQ(rc->id, "comm.socket_fallback");
}

}  // namespace
}  // namespace commdx::diagnose

namespace commdx::diagnose {
namespace {

TEST(PickRootCause, JoinsCauseWithSymptomsFromOtherSources) {
  auto exposed = F("trace.exposed_comm", Severity::kWarning, 8e6);
  exposed.source = Source::kTrace;
  auto shm = F("comm.shm_transport", Severity::kWarning);
  shm.source = Source::kLogs;
  auto p2p = F("comm.p2p_disabled", Severity::kError, std::nullopt, 0.8);
  p2p.source = Source::kLogs;
  p2p.fix = "unset NCCL_P2P_DISABLE";
  std::vector<Finding> v = {exposed, shm, p2p};
  RankFindings(v);
  auto rc = PickRootCause(v, {Source::kLogs, Source::kTrace});
  ASSERT_TRUE(rc);
  EXPECT_EQ(rc->id, "comm.p2p_disabled");
  EXPECT_EQ(v.front().id, "comm.p2p_disabled");
  EXPECT_DOUBLE_EQ(*v.front().cost_ns_per_step, 8e6);  // inherits the exposed time it causes
  EXPECT_NEAR(rc->confidence, 0.9, 1e-9);              // two sources agree
  EXPECT_NE(std::find(rc->supporting.begin(), rc->supporting.end(), "trace.exposed_comm"),
            rc->supporting.end());
  EXPECT_TRUE(rc->contradicting.empty());
  EXPECT_NE(rc->summary.find("unset NCCL_P2P_DISABLE"), std::string::npos);
}

TEST(PickRootCause, AbsentSymptomInAReadSourceIsContradicting) {
  auto p2p = F("comm.p2p_disabled", Severity::kError);
  p2p.source = Source::kLogs;
  std::vector<Finding> v = {p2p};
  auto rc = PickRootCause(v, {Source::kLogs, Source::kTrace});
  ASSERT_TRUE(rc);
  ASSERT_EQ(rc->contradicting.size(), 1u);
  EXPECT_NE(rc->contradicting[0].find("trace"), std::string::npos);
}

TEST(PickRootCause, SameRankRuleIgnoresOtherRanks) {
  auto stall = F("trace.data_stall", Severity::kWarning, 2e6);
  stall.rank = 1;
  auto skew = F("trace.arrival_skew", Severity::kWarning, 9e6);
  skew.rank = 0;
  std::vector<Finding> v = {skew, stall};
  auto rc = PickRootCause(v, {Source::kTrace});
  ASSERT_TRUE(rc);
  EXPECT_EQ(rc->id, "trace.data_stall");
  EXPECT_TRUE(rc->supporting.empty());
  skew.rank = 1;
  std::vector<Finding> w = {skew, stall};
  rc = PickRootCause(w, {Source::kTrace});
  EXPECT_TRUE(rc->supporting.empty());  // a 2 ms stall cannot make a rank 9 ms late
  stall.cost_ns_per_step = 9.5e6;
  std::vector<Finding> x = {skew, stall};
  rc = PickRootCause(x, {Source::kTrace});
  EXPECT_EQ(rc->id, "trace.data_stall");
  EXPECT_EQ(rc->supporting.size(), 1u);
  EXPECT_DOUBLE_EQ(*x.front().cost_ns_per_step, 9.5e6);  // keeps its own measured cost
}

TEST(PickRootCause, ACauseThatLeavesAMoreSevereSymptomUnexplainedIsNotTheRoot) {
  auto sync = F("trace.host_sync", Severity::kWarning, 5e6);
  sync.rank = 1;
  auto skew = F("trace.arrival_skew", Severity::kError, 20e6);
  skew.rank = 1;
  std::vector<Finding> v = {skew, sync};
  auto rc = PickRootCause(v, {Source::kTrace});
  ASSERT_TRUE(rc);
  EXPECT_EQ(rc->id, "trace.arrival_skew");
  sync.cost_ns_per_step = 30e6;  // larger than the skew: it explains it
  std::vector<Finding> u = {skew, sync};
  rc = PickRootCause(u, {Source::kTrace});
  EXPECT_EQ(rc->id, "trace.host_sync");
  sync.cost_ns_per_step = 5e6;
  sync.severity = Severity::kError;  // as severe but smaller: both stand, the costlier leads
  std::vector<Finding> w = {skew, sync};
  rc = PickRootCause(w, {Source::kTrace});
  EXPECT_EQ(rc->id, "trace.host_sync");
  EXPECT_TRUE(rc->supporting.empty());
}

TEST(PickRootCause, HostSyncExplainsLaunchBoundOnlyWhenItIsTheLargerShare) {
  // Their idle is measured apart (idle_attribution.h): a sync explains the launch-bound idle
  // only where it is the larger part of the two, never by rule.
  auto sync = F("trace.host_sync", Severity::kWarning, 0.2e6);
  sync.rank = 0;
  auto launch = F("trace.launch_bound", Severity::kWarning, 20e6);
  launch.rank = 0;
  std::vector<Finding> v = {launch, sync};
  auto rc = PickRootCause(v, {Source::kTrace});
  ASSERT_TRUE(rc);
  EXPECT_EQ(rc->id, "trace.host_sync");  // the only cause; symptoms are never preferred
  EXPECT_TRUE(rc->supporting.empty());
  sync.cost_ns_per_step = 30e6;
  std::vector<Finding> w = {launch, sync};
  rc = PickRootCause(w, {Source::kTrace});
  ASSERT_EQ(rc->supporting.size(), 1u);
  EXPECT_EQ(rc->supporting[0], "trace.launch_bound");
}

TEST(PickRootCause, OnlySymptomsNamesTheStrongestWithLowerConfidence) {
  auto skew = F("trace.arrival_skew", Severity::kWarning, 9e6);
  skew.rank = 1;
  std::vector<Finding> v = {F("trace.pattern", Severity::kInfo), skew};
  auto rc = PickRootCause(v, {Source::kTrace});
  ASSERT_TRUE(rc);
  EXPECT_EQ(rc->id, "trace.arrival_skew");
  EXPECT_LT(rc->confidence, 0.8);
}

}  // namespace
}  // namespace commdx::diagnose
