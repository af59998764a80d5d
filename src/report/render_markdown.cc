#include "base/printable.h"
#include "base/text.h"
#include "report/render.h"
#include "report/render_util.h"

namespace commdx::report {

namespace {

// Markdown text and table cells: control characters and line breaks shown (a newline in a file
// name would end the table row), then the characters that would break the table or inject
// markup escaped. Input text (file names, locations) never goes into a code span: a backtick in
// it would close the span and let the rest through as raw HTML.
std::string Md(std::string_view raw) {
  std::string s = Printable(raw), out;
  for (char c : s) {
    if (c == '|' || c == '*' || c == '_' || c == '`' || c == '<' || c == '>' || c == '[' ||
        c == ']' || c == '\\')
      out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::string RenderMarkdown(const Report& r) {
  std::string out = "## commdx " + r.command + "\n\n";
  out += std::to_string(r.inputs.size()) + " input(s) read";
  if (!r.skipped.empty()) out += ", " + std::to_string(r.skipped.size()) + " skipped";
  out += ".\n\n";
  if (r.include_root_cause && r.diagnosis.root_cause) {
    const auto& rc = *r.diagnosis.root_cause;
    out += "**Root cause:** `" + rc.id + "` (confidence " + FormatPercent(rc.confidence) +
           (rc.saving_ns > 0 ? "; fixing it " + SavingPhrase(rc.saving_ns, rc.step_ns) : "") +
           ") — " + Md(rc.summary) + "\n\n";
  }
  out += "### Findings\n\n";
  if (r.diagnosis.findings.empty()) out += NoFindingsText(r) + "\n\n";
  for (const auto& f : r.diagnosis.findings) {
    out += "- **" + std::string(SeverityName(f.severity)) + "** `" + f.id + "` — " + Md(f.title) +
           "\n";
    if (!f.detail.empty()) out += "  - " + Md(f.detail) + "\n";
    for (const auto& m : f.metrics) out += "  - " + Md(m.name) + ": " + Md(FormatMetric(m)) + "\n";
    if (f.saving_ns_per_step) out += "  - fixing it " + SavingOf(f) + "\n";
    for (size_t i = 0; i < f.refs.size() && i < 4; ++i)
      out += "  - " + Md(f.refs[i].where.ToString()) + ": " + Md(f.refs[i].text) + "\n";
    if (!f.fix.empty()) out += "  - **Fix:** " + Md(f.fix) + "\n";
  }
  out += "\n";
  for (const auto& t : r.tables) {
    out += "### " + Md(t.title) + "\n\n";
    if (t.rows.empty()) {
      out += "(none)\n\n";
      continue;
    }
    out += "|";
    for (const auto& c : t.columns) out += " " + Md(c) + " |";
    out += "\n|";
    for (size_t i = 0; i < t.columns.size(); ++i) out += " --- |";
    out += "\n";
    for (const auto& row : t.rows) {
      out += "|";
      for (const auto& cell : row) out += " " + Md(cell.text) + " |";
      out += "\n";
    }
    out += "\n";
  }
  if (!r.quality.empty()) {
    out += "### Input quality\n\n";
    for (const auto& e : r.quality.entries())
      out += "- " + Md(e.id) + " ×" + std::to_string(e.count) + ": " + Md(e.message) + " (" +
             Md(e.first.ToString()) + ")\n";
    out += "\n";
  }
  if (!r.diagnosis.not_checked.empty()) {
    out += "### Not checked\n\n";
    for (const auto& g : r.diagnosis.not_checked)
      out += "- " + Md(g.what) + ": " + Md(g.how) + "\n";
    out += "\n";
  }
  return out;
}

}  // namespace commdx::report
