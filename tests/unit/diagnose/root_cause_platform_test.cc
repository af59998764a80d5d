// A bound of the platform (TCP between hosts with no RDMA device) against faults the user can fix.
#include <gtest/gtest.h>

#include "diagnose/diagnosis.h"

namespace commdx::diagnose {
namespace {

Finding Priced(std::string id, Severity s, double saving_ns, double step_ns) {
  Finding f;
  f.id = std::move(id);
  f.severity = s;
  f.saving_ns_per_step = saving_ns;
  f.step_ns = step_ns;
  return f;
}

Finding Sockets(bool platform) {
  Finding f;
  f.id = "comm.socket_fallback";
  f.severity = Severity::kWarning;
  f.title = "No RDMA device on these hosts";
  f.source = Source::kLogs;
  f.platform_bound = platform;
  return f;
}

// Two hosts without RDMA, one rank 46 ms late in a 158 ms step, 103 ms of exposed socket traffic.
std::vector<Finding> StragglerOnSockets(bool platform) {
  Finding exposed = Priced("trace.exposed_comm", Severity::kWarning, 103e6, 158e6);
  exposed.source = Source::kTrace;
  Finding skew = Priced("trace.arrival_skew", Severity::kError, 46e6, 158e6);
  skew.source = Source::kTrace;
  skew.rank = 1;
  return {exposed, skew, Sockets(platform)};
}

TEST(PlatformBound, AFixableSavingIsTheRootAndTheBoundIsNamedAfterIt) {
  std::vector<Finding> v = StragglerOnSockets(true);
  RankFindings(v);
  auto rc = PickRootCause(v, {Source::kLogs, Source::kTrace});
  ASSERT_TRUE(rc);
  EXPECT_EQ(rc->id, "trace.arrival_skew");
  EXPECT_EQ(v.front().id, "trace.arrival_skew");
  EXPECT_DOUBLE_EQ(rc->saving_ns, 46e6);
  EXPECT_NE(rc->summary.find("the platform bounds more: comm.socket_fallback"), std::string::npos)
      << rc->summary;
  EXPECT_NE(rc->summary.find("103"), std::string::npos) << rc->summary;
  // The bound still accounts for the exposed traffic: that is not a rival root.
  EXPECT_TRUE(rc->single);
}

TEST(PlatformBound, SocketsChosenByASettingStillCompeteAsAFault) {
  std::vector<Finding> v = StragglerOnSockets(false);
  RankFindings(v);
  auto rc = PickRootCause(v, {Source::kLogs, Source::kTrace});
  ASSERT_TRUE(rc);
  EXPECT_EQ(rc->id, "comm.socket_fallback");  // inherits the 103 ms it explains
  EXPECT_EQ(rc->summary.find("platform bounds"), std::string::npos);
}

TEST(PlatformBound, IsTheRootWhenNothingFixableHasASaving) {
  Finding exposed = Priced("trace.exposed_comm", Severity::kWarning, 103e6, 110e6);
  exposed.source = Source::kTrace;
  Finding override_set;
  override_set.id = "comm.env_override";
  override_set.severity = Severity::kInfo;
  std::vector<Finding> v = {exposed, override_set, Sockets(true)};
  RankFindings(v);
  auto rc = PickRootCause(v, {Source::kLogs, Source::kTrace});
  ASSERT_TRUE(rc);
  EXPECT_EQ(rc->id, "comm.socket_fallback");
  EXPECT_DOUBLE_EQ(rc->saving_ns, 103e6);
  EXPECT_EQ(rc->summary.find("platform bounds more"), std::string::npos);
}

// Two ranks as two hosts on sockets, slowed 90x by NCCL_MAX_NCHANNELS=1: the cap the user set is
// the root, not the sockets a healthy run of the same job has too.
TEST(PlatformBound, AChannelCapOverSocketsIsTheRoot) {
  Finding exposed = Priced("trace.exposed_comm", Severity::kWarning, 2318e6, 2323e6);
  exposed.source = Source::kTrace;
  Finding cap;
  cap.id = "comm.few_channels";
  cap.severity = Severity::kWarning;
  cap.source = Source::kLogs;
  cap.metrics.push_back({"capped_at", 1, Unit::kCount});
  std::vector<Finding> v = {exposed, Sockets(true), cap};
  RankFindings(v);
  auto rc = PickRootCause(v, {Source::kLogs, Source::kTrace});
  ASSERT_TRUE(rc);
  EXPECT_EQ(rc->id, "comm.few_channels");
  EXPECT_DOUBLE_EQ(rc->saving_ns, 2318e6);  // worth the exposed communication it explains
}

}  // namespace
}  // namespace commdx::diagnose
