// File names from the user's disk reach every report format: a backtick, a newline, a CR or an
// escape sequence in one must not break a table, inject markup or act on the terminal.
#include <gtest/gtest.h>

#include "base/printable.h"
#include "report/render.h"
#include "report/report.h"

namespace commdx::report {
namespace {

const std::string kName =
    "we`ird\n<img src=x onerror=alert(1)>\r\x1b[2Jx\xc2\x9b"
    "1m.log";

Report WithHostileNames() {
  Report r;
  r.command = "diagnose";
  r.tool_version = "test";
  Finding f;
  f.id = "nccl.p2p_disabled";
  f.severity = Severity::kWarning;
  f.title = "title";
  f.refs.push_back({SourceLoc{kName, 3, 1}, "line text\r"});
  r.diagnosis.findings.push_back(f);
  r.quality.Add("nccl_log.unknown_line", DiagSeverity::kNote, "message", SourceLoc{kName, 7, 1});
  r.skipped.push_back({kName, "not a format commdx reads"});
  Table t{"inputs", "Inputs", {"file", "bytes"}, {"file", "bytes"}, {}, ""};
  t.AddRow({kName, Cell::Int(1)});
  r.tables.push_back(t);
  return r;
}

// The characters a terminal acts on: CR, ESC and the 8-bit CSI (U+009B).
void ExpectNoTerminalControls(const std::string& out) {
  EXPECT_EQ(out.find('\r'), std::string::npos);
  EXPECT_EQ(out.find('\x1b'), std::string::npos);
  EXPECT_EQ(out.find("\xc2\x9b"), std::string::npos);
}

TEST(ReportFileNames, MarkdownKeepsTablesAndNoRawHtml) {
  std::string md = RenderMarkdown(WithHostileNames());
  for (size_t at = md.find('<'); at != std::string::npos; at = md.find('<', at + 1))
    EXPECT_EQ(md[at - 1], '\\') << "raw markup at " << at << ": " << md.substr(at, 20);
  EXPECT_NE(md.find("we\\`ird"), std::string::npos);  // the backtick is escaped
  ExpectNoTerminalControls(md);
  // Every table row is one line: the newline of the name is shown, not written.
  for (size_t at = md.find("| we"); at != std::string::npos; at = md.find("| we", at + 1))
    EXPECT_NE(md.substr(at, md.find('\n', at) - at).find("| 1 |"), std::string::npos);
}

TEST(ReportFileNames, TextShowsControlCharacters) {
  std::string text = RenderText(WithHostileNames(), TextOptions{});
  ExpectNoTerminalControls(text);
  EXPECT_NE(text.find("we`ird\\n<img"), std::string::npos);
  EXPECT_NE(text.find("\\r"), std::string::npos);
}

TEST(ReportFileNames, PrintableKeepsTextAndTabs) {
  EXPECT_EQ(Printable("a\tb é"), "a\tb é");
  EXPECT_EQ(Printable("a\nb"), "a\\nb");
  EXPECT_EQ(Printable("a\nb", true), "a\nb");
  EXPECT_EQ(Printable("\xc2\x9b"), "\\x9b");
}

}  // namespace
}  // namespace commdx::report
