#include "diagnose/compare.h"

#include <gtest/gtest.h>

#include "ingest/saved_result/saved_result_reader.h"

namespace commdx {
namespace {

FileText Json(std::string name, std::string text) {
  FileText f;
  f.path = std::move(name);
  f.data = std::move(text);
  return f;
}

TEST(SavedResult, FlattensArraysByIdentityField) {
  auto r = ingest::ReadSavedResult(Json("a.json", R"({"schema_version":1,"command":"bench",
    "findings":[{"id":"bench.low_busbw","severity":"error","title":"t","rank":null}],
    "data":{"sweep":[{"size_bytes":1024,"busbw_gbps":1.5},{"size_bytes":2048,"busbw_gbps":3.0}]}})"));
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->command, "bench");
  ASSERT_EQ(r->findings.size(), 1u);
  EXPECT_EQ(r->findings[0].severity, Severity::kError);
  EXPECT_EQ(r->findings[0].rank, -1);
  bool found = false;
  for (auto& [p, v] : r->numbers)
    if (p == "data.sweep[size_bytes=2048].busbw_gbps") found = (v == 3.0);
  EXPECT_TRUE(found);
}

TEST(SavedResult, RejectsForeignJsonAndGarbage) {
  auto r = ingest::ReadSavedResult(Json("x.json", R"({"traceEvents":[]})"));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("schema_version"), std::string::npos);
  EXPECT_FALSE(ingest::ReadSavedResult(Json("y.json", "{\"schema_version\":1,")));
  EXPECT_FALSE(ingest::ReadSavedResult(Json("z.json", "[1,2]")));
}

// A finding in both results whose severity fell and whose saving doubled is a change to show;
// a field of the wrong kind is damage, named, not read as nothing.
TEST(Compare, AFindingInBothThatChangedIsShownAndBadFieldsAreRefused) {
  auto result = [](const char* severity, const char* saving) {
    return std::string(R"({"schema_version":1,"command":"diagnose","findings":[{"id":)") +
           R"("trace.data_stall","severity":")" + severity + R"(","title":"t","rank":1,)" +
           R"("saving_per_step_ns":)" + saving + R"(,"confidence":0.8}],"data":{}})";
  };
  auto a = ingest::ReadSavedResult(Json("a.json", result("error", "62000000")));
  auto b = ingest::ReadSavedResult(Json("b.json", result("warning", "124000000")));
  ASSERT_TRUE(a) << a.error().ToString();
  ASSERT_TRUE(b) << b.error().ToString();
  auto c = diagnose::Compare(*a, *b, {});
  EXPECT_TRUE(c.added.empty());
  EXPECT_TRUE(c.resolved.empty());
  ASSERT_EQ(c.strings.size(), 1u);
  EXPECT_EQ(c.strings[0].path, "findings[id=trace.data_stall,rank=1].severity");
  EXPECT_EQ(c.strings[0].before, "error");
  EXPECT_EQ(c.strings[0].after, "warning");
  ASSERT_EQ(c.numbers.size(), 1u);
  EXPECT_EQ(c.numbers[0].path, "findings[id=trace.data_stall,rank=1].saving_per_step_ns");
  EXPECT_DOUBLE_EQ(c.numbers[0].relative, 1.0);
  auto bogus = ingest::ReadSavedResult(Json("c.json", result("bogus", "1")));
  ASSERT_FALSE(bogus);
  EXPECT_NE(bogus.error().message.find("findings[0] (trace.data_stall).severity: expected"),
            std::string::npos)
      << bogus.error().message;
  auto negative = ingest::ReadSavedResult(Json("d.json", result("error", "-5")));
  ASSERT_FALSE(negative);
  EXPECT_NE(negative.error().message.find("saving_per_step_ns"), std::string::npos);
}

TEST(Compare, FindsAddedResolvedAndMovedNumbers) {
  SavedResult a, b;
  a.findings = {{"comm.p2p_disabled", Severity::kError, "", -1},
                {"trace.host_sync", Severity::kWarning, "", 1}};
  b.findings = {{"trace.host_sync", Severity::kWarning, "", 1},
                {"bench.low_busbw", Severity::kError, "", -1}};
  a.numbers = {{"busbw", 27.8}, {"lat", 13.0}, {"gone", 1}};
  b.numbers = {{"busbw", 346.2}, {"lat", 13.2}, {"new", 2}};
  a.strings = {{"transport", "SHM"}};
  b.strings = {{"transport", "P2P"}};
  auto c = diagnose::Compare(a, b, {0.05});
  ASSERT_EQ(c.added.size(), 1u);
  EXPECT_EQ(c.added[0].id, "bench.low_busbw");
  ASSERT_EQ(c.resolved.size(), 1u);
  EXPECT_EQ(c.resolved[0].id, "comm.p2p_disabled");
  ASSERT_EQ(c.numbers.size(), 1u);  // lat moved 1.5%, under the threshold
  EXPECT_EQ(c.numbers[0].path, "busbw");
  EXPECT_NEAR(c.numbers[0].relative, (346.2 - 27.8) / 27.8, 1e-9);
  ASSERT_EQ(c.strings.size(), 1u);
  EXPECT_EQ(c.only_in_a, std::vector<std::string>{"gone"});
  EXPECT_EQ(c.only_in_b, std::vector<std::string>{"new"});
}

}  // namespace
}  // namespace commdx
