#include "report/compare_tables.h"

#include <cmath>

#include "base/str_format.h"

namespace commdx::report {

namespace {

Table FindingTable(const char* key, const char* title, const std::vector<SavedFinding>& findings) {
  Table t{key, title, {"id", "severity", "rank", "title"}, {"id", "severity", "rank", "title"},
          {},  ""};
  for (const auto& f : findings)
    t.AddRow({f.id, SeverityName(f.severity), f.rank >= 0 ? std::to_string(f.rank) : "-", f.title});
  return t;
}

}  // namespace

void AddCompareTables(const diagnose::Comparison& c, Report& rep) {
  rep.tables.push_back(FindingTable("findings_added", "Findings only in B (new)", c.added));
  rep.tables.push_back(
      FindingTable("findings_resolved", "Findings only in A (gone in B)", c.resolved));
  Table nums{"number_changes",
             "Numbers that changed by at least the threshold",
             {"path", "A", "B", "change"},
             {"path", "a", "b", "relative_change"},
             {},
             ""};
  for (const auto& n : c.numbers) {
    std::string pct =
        std::isfinite(n.relative) ? StrFormat("%+.1f%%", n.relative * 100) : std::string("from 0");
    Cell change(pct);
    change.number = n.relative;
    change.decimals = 4;
    nums.AddRow({n.path, Cell::Num(n.before, 3), Cell::Num(n.after, 3), change});
  }
  rep.tables.push_back(std::move(nums));
  Table strs{
      "string_changes", "Values that differ", {"path", "A", "B"}, {"path", "a", "b"}, {}, ""};
  for (const auto& s : c.strings) strs.AddRow({s.path, s.before, s.after});
  rep.tables.push_back(std::move(strs));
  if (!c.only_in_a.empty() || !c.only_in_b.empty()) {
    Table only{
        "only_in_one", "Present in only one of the two", {"path", "in"}, {"path", "in"}, {}, ""};
    for (const auto& p : c.only_in_a) only.AddRow({p, "A"});
    for (const auto& p : c.only_in_b) only.AddRow({p, "B"});
    rep.tables.push_back(std::move(only));
  }
}

}  // namespace commdx::report
