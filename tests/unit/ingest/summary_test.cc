// The summary file (ingest/summary, docs/summary-format.md): its texts read back by their
// importers; only its own content is recognised; base64 carries any bytes. Traces, versions and
// bad summaries: tests/unit/pipeline/summary_digest_test.cc (a trace is summarised from its
// digest, whose codec is the pipeline's).
#include <gtest/gtest.h>

#include <string>

#include "base/json_writer.h"
#include "ingest/registry.h"
#include "ingest/summary/base64.h"
#include "ingest/summary/summarize.h"
#include "ingest/summary/summary_format.h"
#include "ingest/summary/summary_importer.h"

namespace commdx::ingest {
namespace {

Result<Job> Read(const std::string& json) {
  Job part;
  COMMDX_TRY(ParseSummary(FileText{"s.json", json}, part));
  return part;
}

// Text inputs read back by their importers (traces are summarised from their digest, which the
// pipeline's codec writes: tests/unit/pipeline/summary_digest_test.cc).
TEST(Summary, TextsReadBackByTheirImporters) {
  const std::string log = std::string(COMMDX_SOURCE_DIR) + "/examples/ddp_healthy/nccl.vm.653.log";
  auto s = summary::Summarize({log}, {1, "test", nullptr});
  ASSERT_TRUE(s.has_value()) << s.error().message;
  EXPECT_EQ(s->texts, 1u);
  EXPECT_EQ(s->traces, 0u);
  auto part = Read(s->json);
  ASSERT_TRUE(part.has_value()) << part.error().message;
  Job raw;
  auto text = ReadFile(log);
  ASSERT_TRUE(text.has_value());
  ASSERT_TRUE(FindImporter(InputKind::kNcclLog)->parse(*text, raw).has_value());
  ASSERT_FALSE(raw.nccl.communicators.empty());
  EXPECT_EQ(part->nccl.communicators.size(), raw.nccl.communicators.size());
  EXPECT_EQ(part->nccl.nccl_lines, raw.nccl.nccl_lines);
  ASSERT_EQ(part->inputs.size(), 1u);
  EXPECT_EQ(part->inputs[0].kinds, std::vector<InputKind>{InputKind::kNcclLog});
}

TEST(Summary, OnlyItsOwnContentIsRecognised) {
  EXPECT_TRUE(SniffSummary(" {\n \"commdx_summary\": {}}"));
  EXPECT_FALSE(SniffSummary("{\"traceEvents\": [], \"commdx_summary\": {}}"));
  EXPECT_FALSE(SniffSummary("[\"commdx_summary\"]"));
}

TEST(Summary, Base64CarriesAnyBytes) {
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  for (size_t n : {0u, 1u, 2u, 3u, 4u, 255u, 256u}) {
    std::string enc = summary::Base64Encode(all.substr(0, n));
    EXPECT_EQ(enc.size() % 4, 0u);
    EXPECT_EQ(summary::Base64Decode(enc), all.substr(0, n));
  }
  EXPECT_EQ(summary::Base64Encode("Man"), "TWFu");
  EXPECT_EQ(summary::Base64Encode("Ma"), "TWE=");
  EXPECT_FALSE(summary::Base64Decode("TWF").has_value());
  EXPECT_FALSE(summary::Base64Decode("TW=u").has_value());
  EXPECT_FALSE(summary::Base64Decode("TW!u").has_value());
}

}  // namespace
}  // namespace commdx::ingest
