#include <cmath>
#include <memory>

#include "base/str_format.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "diagnose/compare.h"
#include "ingest/saved_result/saved_result_reader.h"
#include "report/report.h"

namespace commdx::cli {

namespace {

struct CompareCliOptions {
  std::string a, b;
  diagnose::CompareOptions compare;
  OutputOptions output;
};

report::Table FindingTable(const char* key, const char* title,
                           const std::vector<SavedFinding>& findings) {
  report::Table t{
      key, title, {"id", "severity", "rank", "title"}, {"id", "severity", "rank", "title"}, {}, ""};
  for (const auto& f : findings)
    t.AddRow({f.id, SeverityName(f.severity), f.rank >= 0 ? std::to_string(f.rank) : "-", f.title});
  return t;
}

// One saved result, refused when another version of commdx wrote it: its paths and meanings
// may differ, so a diff would report renamed fields as changes.
Result<SavedResult> ReadComparable(const std::string& path) {
  COMMDX_ASSIGN_OR_RETURN(FileText text, ReadFile(path));
  COMMDX_ASSIGN_OR_RETURN(SavedResult r, ingest::ReadSavedResult(text));
  if (r.schema_version != report::kSchemaVersion)
    return MakeError(ErrorCode::kBadInput,
                     "schema_version " + std::to_string(r.schema_version) + ", but this commdx (" +
                         COMMDX_VERSION + ") reads schema_version " +
                         std::to_string(report::kSchemaVersion) +
                         ": compare results written by the same commdx version",
                     {path});
  return r;
}

// Outputs of different commands share few paths: the diff would be all "only in A/B".
Status SameCommand(const SavedResult& a, const SavedResult& b, const std::string& path_b) {
  if (a.command == b.command) return Ok{};
  auto what = [](const SavedResult& r) {
    return r.command.empty() ? std::string("result without a command")
                             : "`" + r.command + "` result";
  };
  return MakeError(ErrorCode::kBadInput,
                   "A is a " + what(a) + " and B a " + what(b) +
                       ": compare two outputs of the same command (diagnose with diagnose, "
                       "bench with bench, ...)",
                   {path_b});
}

int RunCompare(const CompareCliOptions& o) {
  SavedResult results[2];
  const std::string* paths[2] = {&o.a, &o.b};
  for (int i = 0; i < 2; ++i) {
    auto r = ReadComparable(*paths[i]);
    if (!r) return ReportError(r.error());
    results[i] = std::move(r).value();
  }
  if (Status st = SameCommand(results[0], results[1], o.b); !st) return ReportError(st.error());
  auto c = diagnose::Compare(results[0], results[1], o.compare);
  report::Report rep;
  rep.command = "compare";
  rep.tool_version = COMMDX_VERSION;
  rep.inputs = {{o.a, {InputKind::kSavedResult}, 0}, {o.b, {InputKind::kSavedResult}, 0}};
  rep.include_root_cause = false;
  rep.tables.push_back(FindingTable("findings_added", "Findings only in B (new)", c.added));
  rep.tables.push_back(
      FindingTable("findings_resolved", "Findings only in A (gone in B)", c.resolved));
  report::Table nums{"number_changes",
                     "Numbers that changed by at least the threshold",
                     {"path", "A", "B", "change"},
                     {"path", "a", "b", "relative_change"},
                     {},
                     ""};
  for (const auto& n : c.numbers) {
    std::string pct =
        std::isfinite(n.relative) ? StrFormat("%+.1f%%", n.relative * 100) : std::string("from 0");
    report::Cell change(pct);
    change.number = n.relative;
    change.decimals = 4;
    nums.AddRow({n.path, report::Cell::Num(n.before, 3), report::Cell::Num(n.after, 3), change});
  }
  rep.tables.push_back(std::move(nums));
  report::Table strs{
      "string_changes", "Values that differ", {"path", "A", "B"}, {"path", "a", "b"}, {}, ""};
  for (const auto& s : c.strings) strs.AddRow({s.path, s.before, s.after});
  rep.tables.push_back(std::move(strs));
  if (!c.only_in_a.empty() || !c.only_in_b.empty()) {
    report::Table only{
        "only_in_one", "Present in only one of the two", {"path", "in"}, {"path", "in"}, {}, ""};
    for (const auto& p : c.only_in_a) only.AddRow({p, "A"});
    for (const auto& p : c.only_in_b) only.AddRow({p, "B"});
    rep.tables.push_back(std::move(only));
  }
  if (int rc = EmitReport(rep, o.output); rc > 1) return rc;
  // 1 when B has a new error-level finding (a regression), like the other commands.
  for (const auto& f : c.added)
    if (f.severity == Severity::kError) return 1;
  return 0;
}

}  // namespace

void AddCompareCommand(CLI::App& app, Action& run) {
  auto o = std::make_shared<CompareCliOptions>();
  auto* cmd = app.add_subcommand(
      "compare",
      "Diff two saved commdx results (--format json or --save): node vs node, before vs after");
  cmd->add_option("A", o->a, "The baseline result (JSON)")->required();
  cmd->add_option("B", o->b, "The result to compare with it (JSON)")->required();
  cmd->add_option("--threshold", o->compare.threshold,
                  "Show numbers that moved by at least this fraction")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1e9));
  AddOutputFlags(*cmd, o->output);
  cmd->callback([&run, o] { run = [o] { return RunCompare(*o); }; });
}

}  // namespace commdx::cli
