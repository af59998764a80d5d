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
