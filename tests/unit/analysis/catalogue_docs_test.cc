// The catalogue and the docs say the same thing: every finding id has its section on its
// source's findings page and its short name in README's findings list, and every id a findings
// page introduces as a heading is in the catalogue.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "analysis/catalogue.h"
#include "../repo_file.h"

namespace commdx::analysis {
namespace {

// The findings page of an id: hang.* on hang.md, inspector.* and ras.* on their
// own pages, the rest by the source that shows it.
std::string PageOf(const CatalogueEntry& e) {
  if (std::string_view(e.id).substr(0, 5) == "hang.") return "docs/findings/hang.md";
  if (std::string_view(e.id).substr(0, 10) == "inspector.") return "docs/findings/inspector.md";
  if (std::string_view(e.id).substr(0, 4) == "ras.") return "docs/findings/ras.md";
  switch (e.source) {
    case Source::kTrace:
      return "docs/findings/trace.md";
    case Source::kLogs:
      return "docs/findings/logs.md";
    case Source::kBench:
      return "docs/findings/bench.md";
    case Source::kTopo:
    case Source::kEnv:
      return "docs/findings/live.md";
    case Source::kNone:
      break;
  }
  return "";
}

TEST(CatalogueDocs, EveryIdHasItsPageAndItsReadmeLine) {
  const std::string readme = RepoFile("README.md");
  ASSERT_FALSE(readme.empty());
  for (const CatalogueEntry& e : Catalogue()) {
    const std::string page = PageOf(e);
    ASSERT_FALSE(page.empty()) << e.id;
    const std::string text = RepoFile(page);
    EXPECT_NE(text.find(std::string("`") + e.id + "`"), std::string::npos)
        << e.id << " is not described in " << page;
    const std::string shortname = std::string(e.id).substr(std::string(e.id).find('.') + 1);
    EXPECT_NE(readme.find(shortname), std::string::npos)
        << e.id << " is missing from README.md's findings list";
  }
}

TEST(CatalogueDocs, EveryIdAPageHeadsIsInTheCatalogue) {
  // Section headings such as "### `trace.host_sync`".
  const std::regex heading(R"(#+ +`([a-z]+\.[a-z0-9_]+)`)");
  int seen = 0;
  for (const char* page : {"docs/findings/trace.md", "docs/findings/logs.md",
                           "docs/findings/hang.md", "docs/findings/live.md",
                           "docs/findings/bench.md", "docs/findings/inspector.md",
                           "docs/findings/ras.md"}) {
    const std::string text = RepoFile(page);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), heading);
         it != std::sregex_iterator(); ++it, ++seen)
      EXPECT_NE(FindCatalogueEntry((*it)[1].str()), nullptr)
          << page << " heads " << (*it)[1].str() << ", which is not in the catalogue";
  }
  EXPECT_GT(seen, 20);
}

}  // namespace
}  // namespace commdx::analysis
