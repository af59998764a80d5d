// The input-quality table and its page say the same thing, and the table is well formed.
#include "base/quality_ids.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

#include "base/diagnostics.h"
#include "../repo_file.h"

namespace commdx {
namespace {

TEST(QualityIds, ThePageListsEveryIdAndNoOther) {
  const std::string page = RepoFile("docs/input-quality.md");
  ASSERT_FALSE(page.empty());
  std::set<std::string> table;
  for (const QualityIdEntry& e : kQualityIds) {
    EXPECT_TRUE(table.insert(std::string(e.id)).second) << e.id << " is in the table twice";
    EXPECT_FALSE(e.meaning.empty()) << e.id;
    EXPECT_NE(page.find("| `" + std::string(e.id) + "` |"), std::string::npos)
        << e.id << " has no row in docs/input-quality.md";
  }
  const std::regex row(R"(\| `([a-z0-9_]+\.[a-z0-9_]+)` \|)");
  int rows = 0;
  for (auto it = std::sregex_iterator(page.begin(), page.end(), row); it != std::sregex_iterator();
       ++it, ++rows)
    EXPECT_TRUE(table.count((*it)[1].str()))
        << (*it)[1].str() << " is on the page, not in the table";
  EXPECT_EQ(rows, static_cast<int>(table.size()));
}

TEST(QualityIds, AFamilyMemberIsItsPrefixAndTheName) {
  Diagnostics d;
  d.Add(QualityFamily("load.partial_"), "kineto", DiagSeverity::kNote, "m", {});
  d.Add("load.growing", DiagSeverity::kNote, "m", {});
  d.Add("load.growing", DiagSeverity::kNote, "m", {});
  ASSERT_EQ(d.entries().size(), 2u);
  EXPECT_EQ(d.entries()[0].id, "load.partial_kineto");
  EXPECT_EQ(d.Count("load.growing"), 2u);
  static_assert(FindQualityId("kineto.bad_event") != nullptr);
  static_assert(FindQualityId("kineto.bad_evnet") == nullptr);
}

}  // namespace
}  // namespace commdx
