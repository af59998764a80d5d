#include <gtest/gtest.h>
#include <simdjson.h>

#include "report/render.h"
#include "report/report.h"

namespace commdx::report {
namespace {

Report HostileReport() {
  Report r;
  r.command = "diagnose";
  r.tool_version = "test";
  Finding f;
  f.id = "trace.host_sync";
  f.severity = Severity::kError;
  f.title = "kernel <script>alert(1)</script> & \"quotes\"";
  f.detail = "name with | pipe and `tick`";
  f.metrics.push_back({"wait", 1.5e6, Unit::kNs});
  f.refs.push_back({SourceLoc{"a.log", 12, 3}, "<img src=x onerror=alert(1)>"});
  f.fix = "do </script> this";
  f.rank = 1;
  f.saving_ns_per_step = 2e6;
  f.step_ns = 8e6;
  r.diagnosis.findings.push_back(f);
  diagnose::RootCause rc;
  rc.id = "trace.host_sync";
  rc.confidence = 0.8;
  rc.summary = "<b>bold</b>";
  rc.saving_ns = 2e6;
  rc.step_ns = 8e6;
  r.diagnosis.root_cause = rc;
  Table t{"ranks", "Ranks", {"rank", "host"}, {"rank", "host"}, {}, ""};
  t.AddRow({Cell::Int(0), "<script>x</script>"});
  r.tables.push_back(t);
  Timeline tl{"Step timeline",
              {Lane{"rank 0 <x>", {Segment{0, 100, "compute", "<script>k</script>", 1}}, "<g>"}},
              "note <script>"};
  r.charts.timelines.push_back(tl);
  return r;
}

TEST(RenderHtml, EscapesEveryInputString) {
  std::string html = RenderHtml(HostileReport());
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<b>bold"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("data-id=\"trace.host_sync\""), std::string::npos);
  EXPECT_NE(html.find("<svg class=\"timeline\""), std::string::npos);
  EXPECT_NE(html.find("Content-Security-Policy"), std::string::npos);
}

TEST(RenderJson, HasSchemaAndFindingFields) {
  std::string json = RenderJson(HostileReport());
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS);
  EXPECT_EQ(int64_t(doc["schema_version"]), kSchemaVersion);
  auto f = doc["findings"].at(0);
  EXPECT_EQ(std::string_view(f["id"]), "trace.host_sync");
  EXPECT_EQ(std::string_view(f["severity"]), "error");
  EXPECT_EQ(std::string_view(f["evidence"]["metrics"].at(0)["unit"]), "ns");
  EXPECT_EQ(int64_t(f["evidence"]["refs"].at(0)["where"]["line"]), 12);
  EXPECT_EQ(int64_t(f["rank"]), 1);
  EXPECT_EQ(std::string_view(doc["root_cause"]["id"]), "trace.host_sync");
  EXPECT_EQ(std::string_view(doc["data"]["ranks"].at(0)["host"]), "<script>x</script>");
  EXPECT_EQ(json.find("</script>"), std::string::npos);  // '<' is escaped as \u003c
}

TEST(RenderMarkdown, EscapesTableBreakers) {
  std::string md = RenderMarkdown(HostileReport());
  EXPECT_NE(md.find("name with \\| pipe"), std::string::npos);
  EXPECT_EQ(md.find("<script>"), std::string::npos);
}

TEST(RenderText, ShowsFindingEvidenceAndNoColourByDefault) {
  std::string text = RenderText(HostileReport(), {});
  EXPECT_NE(text.find("[error] trace.host_sync"), std::string::npos);
  EXPECT_NE(text.find("a.log:12:3: <img"), std::string::npos);
  EXPECT_NE(text.find("fixing it saves about 2.00 ms per step (25% of the step)"),
            std::string::npos);
  EXPECT_EQ(text.find("\x1b["), std::string::npos);
  std::string colored = RenderText(HostileReport(), {true, false});
  EXPECT_NE(colored.find("\x1b["), std::string::npos);
}

}  // namespace
}  // namespace commdx::report
