#include <algorithm>
#include <cctype>
#include <cstdio>

#include "base/printable.h"
#include "base/text.h"
#include "report/render.h"
#include "report/render_util.h"

namespace commdx::report {

namespace {

struct Style {
  bool on;
  std::string Wrap(std::string_view code, std::string_view s) const {
    if (!on) return std::string(s);
    return "\x1b[" + std::string(code) + "m" + std::string(s) + "\x1b[0m";
  }
  std::string Bold(std::string_view s) const { return Wrap("1", s); }
  std::string Dim(std::string_view s) const { return Wrap("2", s); }
  std::string Sev(Severity sev) const {
    const char* name = SeverityName(sev);
    std::string tag = std::string("[") + name + "]";
    switch (sev) {
      case Severity::kError:
        return Wrap("1;31", tag);
      case Severity::kWarning:
        return Wrap("1;33", tag);
      case Severity::kInfo:
        return Wrap("36", tag);
    }
    return tag;
  }
};

void RenderTable(const Table& t, const Style& st, std::string& out) {
  out += st.Bold(t.title) + "\n";
  if (t.rows.empty()) {
    out += "  (none)\n\n";
    return;
  }
  std::vector<size_t> width(t.columns.size(), 0);
  for (size_t c = 0; c < t.columns.size(); ++c) width[c] = t.columns[c].size();
  for (const auto& row : t.rows)
    for (size_t c = 0; c < row.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], Printable(row[c].text).size());
  auto line = [&](const std::vector<std::string>& cells, const std::vector<bool>& right) {
    std::string s = " ";
    for (size_t c = 0; c < width.size(); ++c) {
      std::string v = c < cells.size() ? cells[c] : "";
      std::string pad(width[c] - std::min(width[c], v.size()), ' ');
      s += ' ';
      s += right[c] ? pad + v : v + pad;
    }
    out += std::string(TrimRight(s)) + "\n";
  };
  std::vector<bool> right(width.size(), false);
  for (size_t c = 0; c < width.size(); ++c) {
    bool numeric = !t.rows.empty();
    for (const auto& row : t.rows)
      if (c < row.size() && !row[c].number && !row[c].text.empty() && row[c].text != "-")
        numeric = false;
    right[c] = numeric;
  }
  line(t.columns, right);
  for (const auto& row : t.rows) {
    std::vector<std::string> cells;
    for (const auto& cell : row) cells.push_back(Printable(cell.text));
    line(cells, right);
  }
  if (!t.note.empty()) out += "  " + st.Dim(Printable(t.note)) + "\n";
  out += "\n";
}

void RenderFinding(const Finding& f, size_t index, const TextOptions& o, const Style& st,
                   std::string& out) {
  out += std::to_string(index) + ". " + st.Sev(f.severity) + " " + st.Bold(f.id) + "  " +
         Printable(f.title) + "\n";
  if (!f.detail.empty()) out += "   " + Printable(f.detail, true) + "\n";
  std::string facts;
  if (f.rank) facts += "rank " + std::to_string(*f.rank) + "; ";
  if (f.saving_ns_per_step) facts += "fixing it " + SavingOf(f) + "; ";
  for (const auto& m : f.metrics) facts += m.name + " = " + FormatMetric(m) + "; ";
  if (f.confidence < 1.0) facts += "confidence " + FormatPercent(f.confidence) + "; ";
  if (!facts.empty()) out += "   " + facts.substr(0, facts.size() - 2) + "\n";
  size_t limit = o.verbose ? f.refs.size() : std::min<size_t>(f.refs.size(), 4);
  for (size_t i = 0; i < limit; ++i) {
    const auto& r = f.refs[i];
    std::string loc = Printable(r.where.ToString());
    out += "   " + st.Dim((loc.empty() ? "" : loc + ": ") + Printable(r.text)) + "\n";
  }
  if (limit < f.refs.size())
    out +=
        "   " +
        st.Dim("... and " + std::to_string(f.refs.size() - limit) + " more (--verbose shows all)") +
        "\n";
  if (!f.fix.empty()) out += "   fix: " + Printable(f.fix, true) + "\n";
  out += "\n";
}

}  // namespace

std::string RenderText(const Report& r, const TextOptions& o) {
  Style st{o.color};
  std::string out;
  out += st.Bold("commdx " + r.command) + "  (" + std::to_string(r.inputs.size()) + " input" +
         (r.inputs.size() == 1 ? "" : "s") + " read";
  if (!r.skipped.empty()) out += ", " + std::to_string(r.skipped.size()) + " skipped";
  out += ")\n\n";

  for (const auto& t : r.tables) RenderTable(t, st, out);

  if (r.include_root_cause && r.diagnosis.root_cause) {
    const auto& rc = *r.diagnosis.root_cause;
    out += st.Bold("Root cause: ") + rc.id + " (confidence " + FormatPercent(rc.confidence) +
           (rc.saving_ns > 0 ? "; fixing it " + SavingPhrase(rc.saving_ns, rc.step_ns) : "") +
           ")\n  " + Printable(rc.summary, true) + "\n\n";
  }
  out += st.Bold("Findings") + "\n";
  if (r.diagnosis.findings.empty()) {
    std::string text = NoFindingsText(r);
    text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
    if (text.back() == '.') text.pop_back();
    out += "  " + text + "\n\n";
  }
  for (size_t i = 0; i < r.diagnosis.findings.size(); ++i)
    RenderFinding(r.diagnosis.findings[i], i + 1, o, st, out);

  if (!r.quality.empty()) {
    out += st.Bold("Input quality") + "\n";
    for (const auto& e : r.quality.entries())
      out += "  " + std::string(DiagSeverityName(e.severity)) + " " + e.id + " x" +
             std::to_string(e.count) + ": " + Printable(e.message) + " (first at " +
             Printable(e.first.ToString()) + ")\n";
    out += "\n";
  }
  if (!r.diagnosis.not_checked.empty()) {
    out += st.Bold("Not checked") + "\n";
    for (const auto& g : r.diagnosis.not_checked)
      out += "  - " + Printable(g.what) + ": " + Printable(g.how) + "\n";
    out += "\n";
  }
  if (!r.skipped.empty()) {
    out += st.Bold("Skipped inputs") + "\n";
    for (const auto& s : r.skipped)
      out += "  " + Printable(s.path) + ": " + Printable(s.reason) + "\n";
    out += "\n";
  }
  return out;
}

}  // namespace commdx::report
