#include "ingest/own_report.h"

#include <cctype>

#include "base/text.h"

namespace commdx::ingest {

namespace {

// "logs" in "commdx logs  (1 input read)": a lower-case word.
size_t CommandWord(std::string_view s) {
  size_t n = 0;
  while (n < s.size() && (std::islower(static_cast<unsigned char>(s[n])) || s[n] == '_')) ++n;
  return n;
}

// The first line of RenderText, colour codes (a report saved from a terminal) removed:
//   commdx logs  (2 inputs read, 1 skipped)
bool IsTextReport(std::string_view s) {
  if (s.rfind("\x1b[1m", 0) == 0) s.remove_prefix(4);
  if (s.rfind("commdx ", 0) != 0) return false;
  s.remove_prefix(7);
  size_t n = CommandWord(s);
  if (n == 0) return false;
  s.remove_prefix(n);
  if (s.rfind("\x1b[0m", 0) == 0) s.remove_prefix(4);
  if (s.rfind("  (", 0) != 0) return false;
  s.remove_prefix(3);
  size_t d = 0;
  while (d < s.size() && std::isdigit(static_cast<unsigned char>(s[d]))) ++d;
  return d > 0 && s.substr(d).rfind(" input", 0) == 0;
}

// RenderMarkdown's first line: "## commdx logs".
bool IsMarkdownReport(std::string_view s) {
  if (s.rfind("## commdx ", 0) != 0) return false;
  s.remove_prefix(10);
  size_t n = CommandWord(s);
  return n > 0 && (n == s.size() || s[n] == '\n' || s[n] == '\r');
}

// RenderJson: {"schema_version": 1, "tool": "commdx", ...} in its first lines.
bool IsJsonReport(std::string_view s) {
  std::string_view top = s.substr(0, 256);
  return !top.empty() && top.front() == '{' && Contains(top, "\"schema_version\"") &&
         (Contains(top, "\"tool\": \"commdx\"") || Contains(top, "\"tool\":\"commdx\""));
}

}  // namespace

std::string OwnReportKind(std::string_view head) {
  std::string_view s = TrimLeft(head);
  if (IsTextReport(s)) return "text";
  if (IsMarkdownReport(s)) return "Markdown";
  if (IsJsonReport(s)) return "JSON";
  if (s.rfind("<!DOCTYPE html>", 0) == 0 && Contains(s.substr(0, 4096), "<title>commdx "))
    return "HTML";
  return "";
}

}  // namespace commdx::ingest
