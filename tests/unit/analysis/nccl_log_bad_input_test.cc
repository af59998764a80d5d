// Bad input never crashes the NCCL log importer: empty, binary junk, no NCCL line, truncated
// lines, very long lines.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "analysis/registry.h"
#include "base/file.h"
#include "ingest/nccl_log/nccl_log_importer.h"
#include "unit/nccl_log_text.h"

namespace commdx {
namespace {

using nccl_log_test::Parse;

TEST(NcclLogBadInput, EmptyAndNoNcclLine) {
  EXPECT_EQ(Parse("").nccl.nccl_lines, 0u);
  EXPECT_FALSE(ingest::SniffNcclLog(""));
  std::string app =
      "epoch 1 loss 0.5\nINFO root: saving checkpoint\n2024-01-01 WARN disk 90% full\n";
  EXPECT_EQ(Parse(app).nccl.nccl_lines, 0u);
  EXPECT_FALSE(ingest::SniffNcclLog(app));
  EXPECT_FALSE(ingest::SniffNcclLog("{\"traceEvents\": [\"NCCL INFO\"]}"));
}

TEST(NcclLogBadInput, BinaryJunk) {
  std::mt19937 rng(7);
  std::string junk(1 << 16, '\0');
  for (auto& c : junk) c = static_cast<char>(rng());
  Job j = Parse(junk);
  EXPECT_EQ(j.nccl.nccl_lines, 0u);
  // Junk around a real line does not hide it.
  Job k = Parse(junk + "\nvm:1:1 [0] NCCL INFO Using network Socket\n" + junk);
  EXPECT_EQ(k.nccl.nets.size(), 1u);
}

TEST(NcclLogBadInput, TruncatedLinesAreCounted) {
  Job j = Parse(
      "vm:656:667 [0] NCCL INFO ncclCommInitRankConfig comm 0xa rank 0 nranks\n"
      "vm:656:675 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] vi\n"
      "vm:656:675 [1] NCCL INFO Channel 00/0 : 1[1] -> \n"
      "vm:656:667 [0] NCCL INFO 24 coll chan\n");
  EXPECT_EQ(j.nccl.nccl_lines, 4u);
  uint64_t bad = 0;
  for (const auto& e : j.quality.entries()) bad += e.count;
  EXPECT_EQ(bad, 4u);  // each truncated line shows up, as malformed or unknown
  EXPECT_TRUE(j.nccl.communicators.empty() || j.nccl.communicators[0].connections.empty());
}

TEST(NcclLogBadInput, TenMegabyteLine) {
  std::string line(10 << 20, 'x');
  Job j = Parse("vm:1:1 [0] NCCL INFO Using network IB\n" + line + "\nvm:1:1 [0] NCCL WARN " +
                line + "\n");
  EXPECT_EQ(j.quality.Count("nccl_log.long_line"), 2u);
  ASSERT_EQ(j.nccl.warnings.size(), 1u);
  EXPECT_LE(j.nccl.warnings[0].ref.line.size(), 410u);  // evidence text is capped
  EXPECT_EQ(j.nccl.FindNet("vm", 1)->network, "IB");
}

TEST(NcclLogBadInput, NoTrailingNewlineAndCrLf) {
  Job j = Parse(
      "vm:1:1 [0] NCCL INFO Using network IB\r\nvm:1:1 [0] NCCL INFO NCCL version 2.18.1+cuda12.1");
  EXPECT_EQ(j.nccl.FindNet("vm", 1)->network, "IB");
  EXPECT_EQ(j.nccl.processes.at(0).version, "2.18.1");
}

// A deterministic mini-fuzz over real lines: every fixture line cut at every position and with
// random bytes flipped, parsed and analysed. Nothing may crash (the ASan build checks bounds).
TEST(NcclLogBadInput, CutAndMutatedRealLinesNeverCrash) {
  std::string corpus;
  const std::string dir = std::string(COMMDX_SOURCE_DIR) + "/tests/data/nccl_log_fixtures";
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << "missing test data " << dir;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".log") continue;
    auto f = ReadFile(e.path().string());
    ASSERT_TRUE(f.has_value());
    corpus += f->data + "\n";
  }
  std::vector<std::string_view> lines;
  std::string_view all = corpus;
  for (size_t pos = 0; pos < all.size();) {
    size_t nl = all.find('\n', pos);
    if (nl == std::string_view::npos) nl = all.size();
    if (nl > pos) lines.push_back(all.substr(pos, nl - pos));
    pos = nl + 1;
  }
  ASSERT_GT(lines.size(), 200u);
  std::mt19937 rng(42);
  std::string cut, mutated;
  for (auto line : lines) {
    for (size_t n = 0; n <= line.size(); n += 3) cut.append(line.substr(0, n)).push_back('\n');
    std::string m(line);
    for (int k = 0; k < 4 && !m.empty(); ++k) m[rng() % m.size()] = static_cast<char>(rng());
    mutated += m + "\n";
  }
  for (const std::string* text : {&cut, &mutated}) {
    Job j = Parse(*text);
    auto findings = analysis::RunAnalyzers(j, {}, {Source::kLogs});
    EXPECT_GT(j.nccl.nccl_lines, 0u);
    for (const auto& f : findings) EXPECT_FALSE(f.id.empty());
  }
}

}  // namespace
}  // namespace commdx
