// JsonScan, the cursor the event scanner reads parts with (src/ingest/kineto/json/json_scan.h):
// its SIMD widths agree byte for byte.
#include "ingest/kineto/json/json_scan.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace commdx {
namespace {

using ingest::kineto::JsonScan;
using ingest::kineto::ScanError;

// SkipRest classifies 64-byte blocks with 16-, 32- or 64-byte loads, the widest the CPU has
// (JsonScan::BestSimd): every width this CPU has gives the same end, error and error place on
// random nested values (strings with escapes and UTF-8, brackets inside strings), then on the
// same with a byte or two changed and cut short, so that each case falls at other block offsets.
TEST(JsonScanSimd, EverySimdWidthSkipsAlike) {
  using Simd = JsonScan::Simd;
  std::vector<Simd> widths = {Simd::kSse2};
  if (JsonScan::BestSimd() >= Simd::kAvx2) widths.push_back(Simd::kAvx2);
  if (JsonScan::BestSimd() >= Simd::kAvx512) widths.push_back(Simd::kAvx512);
  uint64_t x = 0x9E3779B97F4A7C15ull;
  auto next = [&x](uint64_t mod) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return (x >> 33) % mod;
  };
  const std::string atoms[] = {
      R"("a")", R"("}]\"{[")", "\"\xc3\xa9t\xc3\xa9\"", R"("\\")", "12.5",
      "true",   "null",        R"("\u00e9")",           "-3",      R"("")"};
  std::function<void(std::string&, int)> value = [&](std::string& out, int depth) {
    uint64_t kind = depth > 6 ? 2 : next(4);
    if (kind >= 2) {
      out += atoms[next(std::size(atoms))];
      return;
    }
    out += kind == 0 ? '{' : '[';
    for (uint64_t i = 0, n = next(5); i < n; ++i) {
      if (i) out += next(3) == 0 ? ",\n  " : ", ";
      if (kind == 0) out += "\"k" + std::to_string(next(100)) + "\": ";
      value(out, depth + 1);
    }
    out += kind == 0 ? '}' : ']';
  };
  const char noise[] = {'"',  '\\',   '{',    '}', '[',    ']',    ',',
                        '\t', '\x01', '\x1f', ' ', '\xc3', '\xff', 'x'};
  size_t compared = 0, read_whole = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string json = "{";
    json += std::string(next(70), ' ');  // the rest starts at every offset of a block
    json += "\"args\": ";
    value(json, 0);
    json += ", \"ts\": 1}";
    if (round % 3 == 1) json[1 + next(json.size() - 1)] = noise[next(std::size(noise))];
    if (round % 3 == 2) json.resize(1 + next(json.size()));
    std::string buf = json + std::string(64, ' ');
    const char* base = buf.data();
    struct Result {
      long end, error_at;
      ScanError error;
    };
    std::vector<Result> results;
    for (Simd w : widths) {
      JsonScan s(base + json.size());
      const char* end = s.SkipRestWith(w, base + 1, '{');
      results.push_back(
          {end ? end - base : -1, s.error_at() ? s.error_at() - base : -1, s.error()});
    }
    for (size_t i = 1; i < results.size(); ++i) {
      EXPECT_EQ(results[i].end, results[0].end) << json;
      EXPECT_EQ(results[i].error, results[0].error) << json;
      EXPECT_EQ(results[i].error_at, results[0].error_at) << json;
      ++compared;
    }
    read_whole += results[0].end == static_cast<long>(json.size());
  }
  // Not a comparison of failures only: the unchanged values read to their end.
  EXPECT_GE(read_whole, 900u);
  if (widths.size() == 1) GTEST_SKIP() << "this CPU has SSE2 only: one width";
  EXPECT_EQ(compared, 3000u * (widths.size() - 1));
}

}  // namespace
}  // namespace commdx

namespace commdx {
namespace {

using ingest::kineto::AfterColon;
using ingest::kineto::JsonScan;
using ingest::kineto::ScanError;

// JSON allows any run of space, tab, CR and LF on both sides of a key's ':'. AfterColon once
// refused `"grid":     [1]` (two or more blanks after `": "`, as ROCm's tracer aligns args):
// every run of 0-4 blanks before and after the colon gives the value's first byte, and a
// missing colon is still an error at its place.
TEST(JsonScanAfterColon, AnyRunOfBlanksAroundTheColon) {
  const std::string blanks = " \t\r\n";
  std::vector<std::string> runs = {""};
  for (size_t len = 1; len <= 4; ++len) {
    const size_t before = runs.size();
    for (size_t i = 0; i < before; ++i)
      if (runs[i].size() == len - 1)
        for (char b : blanks) runs.push_back(runs[i] + b);
  }
  for (const std::string& pre : {std::string(), std::string(" "), std::string("\t\n ")}) {
    for (const std::string& post : runs) {
      std::string text = "\"grid\"" + pre + ":" + post + "[65536, 1, 1]";
      const size_t len = text.size();
      text.append(64, ' ');  // the padding a part has
      JsonScan s(text.data() + len);
      const char* v = AfterColon(s, text.data() + 5);
      ASSERT_NE(v, nullptr) << "pre '" << pre << "' post of " << post.size();
      EXPECT_EQ(*v, '[');
      EXPECT_EQ(static_cast<size_t>(v - text.data()), 6 + pre.size() + 1 + post.size());
      EXPECT_EQ(s.error(), ScanError::kNone);
    }
  }
  std::string no_colon = "\"grid\"   [1]";
  const size_t len = no_colon.size();
  no_colon.append(64, ' ');
  JsonScan s(no_colon.data() + len);
  EXPECT_EQ(AfterColon(s, no_colon.data() + 5), nullptr);
  EXPECT_EQ(s.error(), ScanError::kExpectedColon);
  EXPECT_EQ(s.error_at(), no_colon.data() + 9);
}

}  // namespace
}  // namespace commdx
