#include "base/text.h"
#include "report/render.h"
#include "report/render_util.h"
#include "report/svg.h"

namespace commdx::report {

namespace {

// No external resources and no script: the file opens offline and nothing in it can run.
constexpr const char* kStyle = R"(
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#222;max-width:1100px}
h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ddd}
.finding{border-left:4px solid #999;padding:6px 12px;margin:10px 0;background:#fafafa}
.finding.error{border-color:#d62728}.finding.warning{border-color:#ff9f1c}.finding.info{border-color:#1f77b4}
.sev{font-weight:bold;text-transform:uppercase;font-size:12px}.id{font-family:monospace}
.refs{font-family:monospace;font-size:12px;color:#555;white-space:pre-wrap}
.root{background:#fff4e5;padding:10px;border:1px solid #ffcc80}
table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left}
svg text{font-size:11px;fill:#333}.legend span{display:inline-block;margin-right:12px}
.note{font-size:12px;color:#555;margin-top:2px}
)";

void Finding(const commdx::Finding& f, std::string& out) {
  std::string sev = SeverityName(f.severity);
  out += "<div class=\"finding " + sev + "\" data-id=\"" + HtmlEscape(f.id) + "\">";
  out += "<span class=\"sev\">" + sev + "</span> <span class=\"id\">" + HtmlEscape(f.id) +
         "</span> — <b>" + HtmlEscape(f.title) + "</b>";
  if (!f.detail.empty()) out += "<p>" + HtmlEscape(f.detail) + "</p>";
  std::string facts;
  if (f.rank) facts += "rank " + std::to_string(*f.rank) + " · ";
  if (f.saving_ns_per_step) facts += "fixing it " + SavingOf(f) + " · ";
  for (const auto& m : f.metrics) facts += m.name + " = " + FormatMetric(m) + " · ";
  if (!facts.empty()) out += "<p>" + HtmlEscape(facts.substr(0, facts.size() - 4)) + "</p>";
  if (!f.refs.empty()) {
    out += "<div class=\"refs\">";
    for (const auto& r : f.refs)
      out +=
          HtmlEscape(r.where.ToString() + (r.where.ToString().empty() ? "" : ": ") + r.text) + "\n";
    out += "</div>";
  }
  if (!f.fix.empty()) out += "<p><b>Fix:</b> " + HtmlEscape(f.fix) + "</p>";
  out += "</div>";
}

void TableHtml(const Table& t, std::string& out) {
  out += "<h2>" + HtmlEscape(t.title) + "</h2><table class=\"data\" data-key=\"" +
         HtmlEscape(t.key) + "\"><tr>";
  for (const auto& c : t.columns) out += "<th>" + HtmlEscape(c) + "</th>";
  out += "</tr>";
  for (const auto& row : t.rows) {
    out += "<tr>";
    for (const auto& cell : row) out += "<td>" + HtmlEscape(cell.text) + "</td>";
    out += "</tr>";
  }
  out += "</table>";
  if (!t.note.empty()) out += "<p>" + HtmlEscape(t.note) + "</p>";
}

void Note(const std::string& note, std::string& out) {
  if (!note.empty()) out += "<p class=\"note\">" + HtmlEscape(note) + "</p>";
}

void ChartsHtml(const Charts& c, std::string& out) {
  if (c.empty()) return;
  out += "<div id=\"charts\">";
  for (const auto& t : c.timelines) {
    out +=
        "<h2>" + HtmlEscape(t.title) +
        "</h2><div class=\"legend\">"
        "<span style=\"color:#4c78a8\">■ compute</span><span style=\"color:#9d755d\">■ copies/sets"
        "</span><span style=\"color:#72b7b2\">■ communication (overlapped)</span>"
        "<span style=\"color:#e45756\">■ communication (exposed)</span>"
        "<span style=\"color:#bab0ac\">■ idle (host)</span><span style=\"color:#f58518\">■ idle "
        "(data loading)</span></div>";
    out += SvgTimeline(t);
    Note(t.note, out);
  }
  for (const auto& h : c.histograms) {
    out += "<h2>" + HtmlEscape(h.title) + "</h2>" + SvgHistogram(h);
    Note(h.note, out);
  }
  for (const auto& x : c.xy) {
    out += "<h2>" + HtmlEscape(x.title) + "</h2>" + SvgXY(x);
    Note(x.note, out);
  }
  out += "</div>";
}

}  // namespace

std::string RenderHtml(const Report& r) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">";
  out +=
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
      "'unsafe-inline'\">";
  out += "<title>commdx " + HtmlEscape(r.command) + "</title><style>" + kStyle +
         "</style></head><body>";
  out += "<h1>commdx " + HtmlEscape(r.command) + "</h1>";
  out += "<p id=\"summary\">" + std::to_string(r.inputs.size()) + " input(s) read, " +
         std::to_string(r.skipped.size()) + " skipped, " +
         std::to_string(r.diagnosis.findings.size()) + " finding(s).</p>";
  if (r.include_root_cause) {
    out += "<div class=\"root\" id=\"root-cause\">";
    if (const auto& rc = r.diagnosis.root_cause)
      out += "<b>Root cause:</b> <span class=\"id\">" + HtmlEscape(rc->id) +
             "</span> (confidence " + FormatPercent(rc->confidence) +
             (rc->saving_ns > 0 ? "; fixing it " + SavingPhrase(rc->saving_ns, rc->step_ns) : "") +
             ")<p>" +
             HtmlEscape(rc->summary) + "</p>";
    else
      out += "No root cause named: nothing at error or warning level agrees on one.";
    out += "</div>";
  }
  out += "<h2>Findings</h2><div id=\"findings\">";
  if (r.diagnosis.findings.empty()) out += "<p>" + HtmlEscape(NoFindingsText(r)) + "</p>";
  for (const auto& f : r.diagnosis.findings) Finding(f, out);
  out += "</div>";
  ChartsHtml(r.charts, out);
  for (const auto& t : r.tables) TableHtml(t, out);
  if (!r.quality.empty()) {
    out += "<h2>Input quality</h2><ul id=\"input-quality\">";
    for (const auto& e : r.quality.entries())
      out += "<li>" +
             HtmlEscape(e.id + " ×" + std::to_string(e.count) + ": " + e.message + " (" +
                        e.first.ToString() + ")") +
             "</li>";
    out += "</ul>";
  }
  if (!r.diagnosis.not_checked.empty()) {
    out += "<h2>Not checked</h2><ul id=\"not-checked\">";
    for (const auto& g : r.diagnosis.not_checked)
      out += "<li>" + HtmlEscape(g.what + ": " + g.how) + "</li>";
    out += "</ul>";
  }
  if (!r.skipped.empty()) {
    out += "<h2>Skipped inputs</h2><ul>";
    for (const auto& s : r.skipped) out += "<li>" + HtmlEscape(s.path + ": " + s.reason) + "</li>";
    out += "</ul>";
  }
  out += "<p style=\"color:#888\">commdx " + HtmlEscape(r.tool_version) + "</p></body></html>\n";
  return out;
}

}  // namespace commdx::report
