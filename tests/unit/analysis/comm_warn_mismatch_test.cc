// NCCL's own mismatch WARNs (tests/data/nccl_log_fixtures, README.md says where each came from):
// NCCL 2.4's "Mismatched collective detected ... at and around rank N" and NET/IB's "collective
// mismatch error, local size A remote size B" are hang.desync naming the rank or the peer, and
// an unknown WARN's title is cut at a word, never mid-word.
#include <gtest/gtest.h>

#include <optional>

#include "analysis/comm_analyzers.h"
#include "base/file.h"
#include "unit/nccl_log_text.h"

namespace commdx::analysis {
namespace {

using nccl_log_test::Parse;

// The finding `id` the log analyzers raise on the NCCL log `text`, if any.
std::optional<Finding> Raised(const std::string& text, std::string_view id) {
  for (auto& f : RunAnalyzers(Parse(text), {}, {Source::kLogs}))
    if (f.id == id) return std::move(f);
  return std::nullopt;
}

std::string Fixture(const std::string& name) {
  auto f = ReadFile(std::string(COMMDX_SOURCE_DIR) + "/tests/data/nccl_log_fixtures/" + name);
  EXPECT_TRUE(f.has_value()) << name;
  return f.has_value() ? f.value().data : std::string();
}

bool Has(const std::string& s, std::string_view part) { return s.find(part) != std::string::npos; }

TEST(CommWarnMismatch, Nccl24MismatchedCollectiveNamesTheRank) {
  // NVIDIA/nccl#296: a maintainer named different sizes or order of collectives across ranks.
  const std::string log = Fixture("case47-nccl2.4.8-mismatched-collective-around-rank39.log");
  auto f = Raised(log, "hang.desync");
  ASSERT_TRUE(f.has_value());
  EXPECT_FALSE(Raised(log, "comm.nccl_warn").has_value());
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(f->rank, 39);
  EXPECT_TRUE(Has(f->title, "at and around rank 39")) << f->title;
  EXPECT_TRUE(Has(f->fix, "same collectives in the same order")) << f->fix;
  ASSERT_FALSE(f->refs.empty());
  EXPECT_EQ(f->refs[0].where.line, 3u);
}

TEST(CommWarnMismatch, SeveralProcessesNameSeveralRanks) {
  // The same WARN from four processes of one job (as NVIDIA/nccl#214 shows, NCCL 2.4's init.cu).
  std::string log;
  for (int r : {11, 15, 9, 13})
    log += "n:1:" + std::to_string(r) + " [3] init.cu:1197 NCCL WARN Mismatched collective "
           "detected, please check your collective calls at and around rank " +
           std::to_string(r) + ". You can use NCCL_DEBUG=INFO and NCCL_DEBUG_SUBSYS=COLL to see "
           "the collective logs\n";
  auto f = Raised(log, "hang.desync");
  ASSERT_TRUE(f.has_value());
  EXPECT_TRUE(Has(f->title, "at and around ranks 9, 11, 13, 15")) << f->title;
  EXPECT_FALSE(f->rank.has_value());
}

TEST(CommWarnMismatch, IbTransferSizeMismatchNamesThePeer) {
  // NVIDIA/nccl#969: closed by its reporter as an environment configuration error.
  const std::string log = Fixture("case48-nccl2.14.3-ib-collective-mismatch-sizes.log");
  auto f = Raised(log, "hang.desync");
  ASSERT_TRUE(f.has_value());
  EXPECT_FALSE(Raised(log, "comm.nccl_warn").has_value());
  EXPECT_TRUE(Has(f->title, "peer 10.10.23.6 posted a 65536-byte receive for a 496640-byte"))
      << f->title;
  // Several causes, one of them a configuration: a moderate confidence.
  EXPECT_DOUBLE_EQ(f->confidence, 0.5);
  EXPECT_TRUE(Has(f->detail, "NCCL_BUFFSIZE")) << f->detail;
  EXPECT_TRUE(Has(f->detail, "before 2.7.8")) << f->detail;
  EXPECT_TRUE(Has(f->fix, "NCCL version on every node")) << f->fix;
  bool local = false;
  for (const auto& m : f->metrics) local |= m.name == "local_size" && m.value == 496640;
  EXPECT_TRUE(local);
}

TEST(CommWarnMismatch, UnknownWarnTitleIsCutAtAWord) {
  // A WARN commdx does not know, longer than a title: cut after a whole word, marked "...".
  auto f = Raised(
      "h:1:2 [0] x.cc:1 NCCL WARN Something nobody has seen before happened while the proxy "
      "thread was connecting peers, please report it to us\n",
      "comm.nccl_warn");
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->title,
            "NCCL warning: Something nobody has seen before happened while the proxy thread was "
            "connecting peers, please report...");
  auto short_one = Raised("h:1:2 [0] x.cc:1 NCCL WARN Something odd\n", "comm.nccl_warn");
  ASSERT_TRUE(short_one.has_value());
  EXPECT_EQ(short_one->title, "NCCL warning: Something odd");
}

}  // namespace
}  // namespace commdx::analysis
