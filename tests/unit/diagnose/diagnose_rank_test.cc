#include <gtest/gtest.h>

#include <algorithm>

#include "diagnose/diagnosis.h"

namespace commdx::diagnose {
namespace {

Finding F(std::string id, Severity s, std::optional<double> cost = std::nullopt, double conf = 1) {
  Finding f;
  f.id = std::move(id);
  f.severity = s;
  f.saving_ns_per_step = cost;
  f.confidence = conf;
  return f;
}

TEST(RankFindings, SavingThenSeverityThenConfidence) {
  std::vector<Finding> v = {
      F("a", Severity::kInfo), F("b", Severity::kWarning, 1e6), F("c", Severity::kWarning, 5e6),
      F("d", Severity::kError, std::nullopt, 0.5), F("e", Severity::kWarning, 5e6, 0.9)};
  RankFindings(v);
  std::vector<std::string> ids;
  for (auto& f : v) ids.push_back(f.id);
  // Priced findings first, largest saving first; the unpriced follow by severity.
  EXPECT_EQ(ids, (std::vector<std::string>{"c", "e", "b", "d", "a"}));
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
  EXPECT_DOUBLE_EQ(*v.front().saving_ns_per_step, 8e6);  // inherits the exposed time it causes
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
  EXPECT_EQ(rc->id, "trace.arrival_skew");  // the larger saving; the stall is on another rank
  EXPECT_TRUE(rc->supporting.empty());
  skew.rank = 1;
  std::vector<Finding> w = {skew, stall};
  rc = PickRootCause(w, {Source::kTrace});
  EXPECT_EQ(rc->id, "trace.arrival_skew");
  EXPECT_TRUE(rc->supporting.empty());  // a 2 ms stall cannot make a rank 9 ms late
  stall.saving_ns_per_step = 9.5e6;
  std::vector<Finding> x = {skew, stall};
  rc = PickRootCause(x, {Source::kTrace});
  EXPECT_EQ(rc->id, "trace.data_stall");
  EXPECT_EQ(rc->supporting.size(), 1u);
  EXPECT_DOUBLE_EQ(*x.front().saving_ns_per_step, 9.5e6);  // keeps its own measured cost
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
  sync.saving_ns_per_step = 30e6;  // larger than the skew: it explains it
  std::vector<Finding> u = {skew, sync};
  rc = PickRootCause(u, {Source::kTrace});
  EXPECT_EQ(rc->id, "trace.host_sync");
  sync.saving_ns_per_step = 5e6;
  sync.severity = Severity::kError;  // more severe but smaller: the larger saving leads
  std::vector<Finding> w = {skew, sync};
  rc = PickRootCause(w, {Source::kTrace});
  EXPECT_EQ(rc->id, "trace.arrival_skew");
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
  // Removing a 0.2 ms sync saves 1% of the loss: the 20 ms launch-bound step is the root.
  EXPECT_EQ(rc->id, "trace.launch_bound");
  EXPECT_TRUE(rc->supporting.empty());
  EXPECT_DOUBLE_EQ(rc->saving_ns, 20e6);
  sync.saving_ns_per_step = 30e6;
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

namespace commdx::diagnose {
namespace {

TEST(PickRootCause, ACheapSyncBesideAnExpensiveSymptomNeverBecomesTheRoot) {
  // Metamorphic: adding a cheap sync to a launch-bound run must not change the root.
  auto launch = F("trace.launch_bound", Severity::kWarning, 18.2e6);
  launch.rank = 0;
  launch.step_ns = 24.8e6;
  std::vector<Finding> alone = {launch};
  auto before = PickRootCause(alone, {Source::kTrace});
  auto sync = F("trace.host_sync", Severity::kWarning, 0.16e6);
  sync.rank = 0;
  std::vector<Finding> with_sync = {sync, launch};
  RankFindings(with_sync);
  auto after = PickRootCause(with_sync, {Source::kTrace});
  ASSERT_TRUE(before && after);
  EXPECT_EQ(before->id, after->id);
  EXPECT_EQ(after->id, "trace.launch_bound");
  EXPECT_NE(after->summary.find("73% of the step"), std::string::npos) << after->summary;
}

TEST(PickRootCause, ALateRankReportedAsInfoStillWinsWhenItCostsMostOfTheStep) {
  // A late rank whose reason is unclear is info, but 56% of the others' step is theirs to gain.
  auto skew = F("trace.arrival_skew", Severity::kInfo, 7.6e6);
  skew.rank = 3;
  skew.step_ns = 13.5e6;
  auto sync = F("trace.host_sync", Severity::kWarning, 0.09e6);
  sync.rank = 3;
  auto small = F("trace.arrival_skew", Severity::kInfo, 0.2e6);  // under 20%: no contender
  small.step_ns = 13.5e6;
  std::vector<Finding> v = {sync, skew, small};
  auto rc = PickRootCause(v, {Source::kTrace});
  ASSERT_TRUE(rc);
  EXPECT_EQ(rc->id, "trace.arrival_skew");
  EXPECT_EQ(v.front().rank, 3);
}

TEST(PickRootCause, ALocalErrorOutranksItsFalloutInAnyOrder) {
  auto oom = F("comm.cuda_error", Severity::kError);
  oom.rank = 5;
  auto peers = F("comm.remote_exited", Severity::kError);
  auto timeout = F("hang.watchdog_timeout", Severity::kError);
  auto slow = F("trace.launch_bound", Severity::kWarning, 20e6);  // a failed job: not the answer
  for (auto order : {std::vector<Finding>{peers, timeout, slow, oom},
                     std::vector<Finding>{oom, peers, timeout, slow},
                     std::vector<Finding>{slow, timeout, oom, peers}}) {
    RankFindings(order);
    auto rc = PickRootCause(order, {Source::kLogs, Source::kTrace});
    ASSERT_TRUE(rc);
    EXPECT_EQ(rc->id, "comm.cuda_error");
    EXPECT_EQ(rc->supporting.size(), 2u);
  }
  std::vector<Finding> only_fallout = {peers};
  auto rc = PickRootCause(only_fallout, {Source::kLogs});
  ASSERT_TRUE(rc);  // with nothing else, the fallout is named (with lower confidence)
  EXPECT_EQ(rc->id, "comm.remote_exited");
  EXPECT_LT(rc->confidence, 0.8);
}

TEST(PickRootCause, SaysWhenNoSingleCauseExplainsMostOfTheLoss) {
  auto a = F("trace.data_stall", Severity::kWarning, 6e6);
  auto b = F("trace.host_sync", Severity::kWarning, 5e6);
  auto c = F("trace.small_collectives", Severity::kWarning, 4e6);
  std::vector<Finding> v = {a, b, c};
  auto rc = PickRootCause(v, {Source::kTrace});
  ASSERT_TRUE(rc);
  EXPECT_EQ(rc->id, "trace.data_stall");
  EXPECT_FALSE(rc->single);
  ASSERT_EQ(rc->top.size(), 3u);
  EXPECT_EQ(rc->top[1].id, "trace.host_sync");
  EXPECT_NE(rc->summary.find("No single cause"), std::string::npos);
  a.saving_ns_per_step = 20e6;  // now it is most of the loss
  std::vector<Finding> w = {a, b, c};
  rc = PickRootCause(w, {Source::kTrace});
  EXPECT_TRUE(rc->single);
  EXPECT_TRUE(rc->top.empty());
}

TEST(PickRootCause, DoublingALateRanksDelayRaisesItsSavingAndKeepsItTheRoot) {
  auto skew = F("trace.arrival_skew", Severity::kWarning, 5e6);
  skew.rank = 2;
  auto exposed = F("trace.exposed_comm", Severity::kWarning, 4e6);
  std::vector<Finding> v = {exposed, skew};
  auto rc1 = PickRootCause(v, {Source::kTrace});
  skew.saving_ns_per_step = 10e6;
  std::vector<Finding> w = {exposed, skew};
  auto rc2 = PickRootCause(w, {Source::kTrace});
  ASSERT_TRUE(rc1 && rc2);
  EXPECT_EQ(rc1->id, "trace.arrival_skew");
  EXPECT_EQ(rc2->id, "trace.arrival_skew");
  EXPECT_GT(rc2->saving_ns, rc1->saving_ns);
}

TEST(GroupAcrossRanks, OneFindingPerCauseNamingTheRanksAndTheWorst) {
  std::vector<Finding> v;
  for (int r = 0; r < 512; ++r) {
    auto f = F("trace.data_stall", Severity::kWarning, 1e6 + 1e3 * r);
    f.rank = r;
    f.title = "Rank " + std::to_string(r) + " stalls on data";
    f.refs.push_back({{"trace_rank" + std::to_string(r) + ".json"}, "stall"});
    v.push_back(f);
  }
  auto other = F("trace.launch_bound", Severity::kWarning, 2e6);
  other.rank = 7;
  v.push_back(other);
  auto out = GroupAcrossRanks(v);
  ASSERT_EQ(out.size(), 2u);
  const Finding& g = out[0].id == "trace.data_stall" ? out[0] : out[1];
  EXPECT_EQ(g.rank, 511);  // the worst rank speaks for the group
  EXPECT_EQ(g.per_rank.size(), 512u);
  EXPECT_EQ(g.per_rank.front().rank, 511);
  EXPECT_NE(g.title.find("(512 ranks: 0-511)"), std::string::npos) << g.title;
  EXPECT_LE(g.refs.size(), 8u);
  EXPECT_NE(g.detail.find("median"), std::string::npos);
  const Finding& l = out[0].id == "trace.launch_bound" ? out[0] : out[1];
  EXPECT_TRUE(l.per_rank.empty());  // one rank: left as it is
}

}  // namespace
}  // namespace commdx::diagnose

namespace commdx::diagnose {
namespace {

TEST(PickRootCause, AChannelCapTheUserSetIsNamedBeforeTheTransportItSitsOn) {
  // Two ranks as two hosts over sockets with NCCL_MAX_NCHANNELS=1: both explain the exposed
  // communication; a healthy run on the same sockets lacks the cap, so the cap is the root.
  auto exposed = F("trace.exposed_comm", Severity::kWarning, 2318e6);
  exposed.step_ns = 2323e6;
  auto sockets = F("comm.socket_fallback", Severity::kError);
  auto cap = F("comm.few_channels", Severity::kWarning);
  cap.metrics.push_back({"capped_at", 1, Unit::kCount});
  for (auto order : {std::vector<Finding>{sockets, cap, exposed},
                     std::vector<Finding>{exposed, cap, sockets}}) {
    auto rc = PickRootCause(order, {Source::kLogs, Source::kTrace});
    ASSERT_TRUE(rc);
    EXPECT_EQ(rc->id, "comm.few_channels");
    EXPECT_TRUE(rc->single);  // the sockets repeat the same loss, they are no rival
  }
  auto uncapped = F("comm.few_channels", Severity::kInfo);  // NCCL's own choice on sockets
  std::vector<Finding> w = {uncapped, sockets, exposed};
  auto rc = PickRootCause(w, {Source::kLogs, Source::kTrace});
  ASSERT_TRUE(rc);
  EXPECT_EQ(rc->id, "comm.socket_fallback");
}

TEST(PickRootCause, TheSettingThatTurnsATransportOffIsExplainedByIt) {
  auto exposed = F("trace.exposed_comm", Severity::kWarning, 9.4e6);
  auto p2p = F("comm.p2p_disabled", Severity::kError);
  auto env = F("comm.env_override", Severity::kWarning);  // NCCL_P2P_DISABLE=1
  std::vector<Finding> v = {env, exposed, p2p};
  auto rc = PickRootCause(v, {Source::kLogs, Source::kTrace});
  ASSERT_TRUE(rc);
  EXPECT_EQ(rc->id, "comm.p2p_disabled");
}

}  // namespace
}  // namespace commdx::diagnose

namespace commdx::diagnose {
namespace {

TEST(GroupAcrossRanks, OneRankSeenThroughSeveralSourcesIsNotASpread) {
  auto a = F("hang.rank_behind", Severity::kError);
  a.rank = 1;
  a.title = "from the dump";
  auto b = a;
  b.title = "from the analyzer's text";
  auto out = GroupAcrossRanks({a, b});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(out[0].per_rank.empty());
  auto c = a;
  c.rank = 3;
  out = GroupAcrossRanks({a, b, c});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].per_rank.size(), 2u);  // ranks 1 and 3, each once
  EXPECT_NE(out[0].title.find("(2 ranks: 1,3)"), std::string::npos) << out[0].title;
}

}  // namespace
}  // namespace commdx::diagnose
