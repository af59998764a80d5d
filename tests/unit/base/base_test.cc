#include <gtest/gtest.h>

#include <cmath>

#include "base/diagnostics.h"
#include "base/file.h"
#include "base/json_writer.h"
#include "base/result.h"
#include "base/str_format.h"
#include "base/text.h"
#include "unit/gzip_text.h"

namespace commdx {
namespace {

Result<int> Half(int x) {
  if (x % 2) return MakeError(ErrorCode::kBadInput, "odd", {"f.log", 3, 7});
  return x / 2;
}

Result<int> Quarter(int x) {
  COMMDX_ASSIGN_OR_RETURN(int h, Half(x));
  return Half(h);
}

TEST(Result, PropagatesErrorWithLocation) {
  EXPECT_EQ(*Quarter(8), 2);
  auto r = Quarter(6);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().ToString(), "f.log:3:7: error: odd");
  EXPECT_EQ(ExitCodeFor(r.error().code), 3);
}

TEST(Text, ParsesNumbersStrictly) {
  EXPECT_EQ(ParseInt("42"), 42);
  EXPECT_FALSE(ParseInt("42x"));
  EXPECT_FALSE(ParseInt(""));
  EXPECT_EQ(ParseHex("0x1f"), 31u);
  EXPECT_DOUBLE_EQ(*ParseDouble("13.94"), 13.94);
  std::string_view s = "123abc";
  EXPECT_EQ(ConsumeInt(s), 123);
  EXPECT_EQ(s, "abc");
}

TEST(Text, ParsesByteSizesWithBinaryUnits) {
  EXPECT_EQ(*ParseByteSize("8"), 8u);
  EXPECT_EQ(*ParseByteSize("512B"), 512u);
  EXPECT_EQ(*ParseByteSize("64K"), 65536u);
  EXPECT_EQ(*ParseByteSize("64kb"), 65536u);
  EXPECT_EQ(*ParseByteSize("8M"), 8u << 20);
  EXPECT_EQ(*ParseByteSize("1.5GB"), 3u << 29);
  EXPECT_EQ(*ParseByteSize("2T"), 2ull << 40);
  // NCCL Inspector's "%.2f MB": 9.54 MiB is 10,003,415.04 bytes, rounded.
  EXPECT_EQ(*ParseByteSize("9.54MB"), 10003415u);
  EXPECT_FALSE(ParseByteSize(""));
  EXPECT_FALSE(ParseByteSize("MB"));
  EXPECT_FALSE(ParseByteSize("-1K"));
  EXPECT_FALSE(ParseByteSize("nanM"));
  EXPECT_FALSE(ParseByteSize("1e30"));  // past 2^64: no cast of a value that does not fit
  EXPECT_FALSE(ParseByteSize("8 MiB"));
}

TEST(Text, SplitsAndTrims) {
  auto parts = SplitWhitespace("  a  bb\tc ");
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[1], "bb");
  EXPECT_EQ(Split("a,,b", ',').size(), 3u);
  EXPECT_EQ(Trim("  x \n"), "x");
}

TEST(Text, JoinsInts) {
  EXPECT_EQ(JoinInts({}), "");
  EXPECT_EQ(JoinInts({4}), "4");
  EXPECT_EQ(JoinInts({0, 3, 7}), "0, 3, 7");
  EXPECT_EQ(JoinInts({0, 3, 7}, ", ", " and "), "0, 3 and 7");
  EXPECT_EQ(JoinInts({1, 2}, ", ", " and "), "1 and 2");
}

TEST(Text, CutAtWordKeepsWholeWords) {
  EXPECT_EQ(CutAtWord("short enough", 12), "short enough");
  // NCCL 2.4's warning (nccl#296): a fixed cut gave "You can us.".
  const std::string warn =
      "Mismatched collective detected, please check your collective calls at and around rank "
      "39. You can use NCCL_DEBUG=INFO";
  EXPECT_EQ(CutAtWord(warn, 100),
            "Mismatched collective detected, please check your collective calls at and around "
            "rank 39. You can...");
  EXPECT_EQ(CutAtWord("around rank 39. You", 16), "around rank 39...");  // no "39...."
  // No space in the second half: the byte limit, moved back to the start of a UTF-8 character.
  EXPECT_EQ(CutAtWord("ab cdefghij", 8), "ab cdefg...");
  const std::string accented = "abc\xc3\xa9";  // "abc" and a two-byte e-acute
  EXPECT_EQ(CutAtWord(accented + "def", 4), "abc...");
}

TEST(Text, SanitizesInvalidUtf8) {
  EXPECT_EQ(SanitizeUtf8("ok \xc3\xa9"), "ok \xc3\xa9");
  EXPECT_EQ(SanitizeUtf8("a\nb"), "a\nb");
  EXPECT_EQ(SanitizeUtf8("bad \xff\xfe"), "bad ??");
  EXPECT_EQ(SanitizeUtf8(std::string_view("a\0b", 3)), "a?b");
  // Runs of printable ASCII are copied whole; every byte around and between them is judged as
  // before: controls but tab/newline/CR and DEL become '?', so do broken or cut sequences.
  EXPECT_EQ(SanitizeUtf8("thread 12 (pt_main)\x7f\t\x01x\r\xe2\x82\xacy\xe2\x82"), "thread 12 (pt_main)?\t?x\r\xe2\x82\xacy??");
  EXPECT_EQ(SanitizeUtf8("\xf0\x9f\x98\x80 ~ \x1f"), "\xf0\x9f\x98\x80 ~ ?");
  EXPECT_EQ(SanitizeUtf8(""), "");
}

TEST(File, GunzipRoundTripAndConcatenatedMembers) {
  std::string a(100000, 'a'), b = "tail\n";
  auto gz = GzipString(a) + GzipString(b);
  auto r = Gunzip(gz, "x.gz");
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(*r, a + b);
}

TEST(File, TruncatedGzipIsABadInputError) {
  auto gz = GzipString(std::string(100000, 'z') + "payload");
  auto r = Gunzip(std::string_view(gz).substr(0, gz.size() / 2), "t.gz");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
  EXPECT_NE(r.error().message.find("truncated"), std::string::npos);
}

TEST(File, GunzipHonoursSizeLimit) {
  auto gz = GzipString(std::string(1 << 20, 'z'));
  auto r = Gunzip(gz, "bomb.gz", 1000);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("limit"), std::string::npos);
}

TEST(Gunzip, ReadsRepetitiveTextAtAnyRatioAndStopsAtTheSizeLimit) {
  // One warning repeated (a real log's shape): hundreds to one, like a bomb, and still a log.
  std::string warn = "node1:946:988 [0] misc/socket.cc:538 NCCL WARN Net : Connection closed\n";
  std::string text;
  while (text.size() < (80u << 20)) text += warn;
  std::string gz = GzipString(text);
  EXPECT_GT(text.size() / gz.size(), 200u);
  auto r = Gunzip(gz, "warn.log.gz", 1ull << 30);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->size(), text.size());
  auto bomb = Gunzip(gz, "bomb.gz", 64u << 20);
  ASSERT_FALSE(bomb);
  EXPECT_NE(bomb.error().message.find("decompression stopped"), std::string::npos);
  EXPECT_NE(bomb.error().message.find("over the limit of 64 MiB"), std::string::npos);
}

TEST(Gunzip, TruncationIsPlacedInTheDecompressedText) {
  std::string text = "a\nbb\n" + std::string(200000, 'c');
  std::string gz = GzipString(text);
  auto r = Gunzip(std::string_view(gz).substr(0, gz.size() / 2), "t.gz");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().where.line, 3u);  // past the two short lines, inside the long one
  EXPECT_GT(r.error().where.col, 1u);
  EXPECT_NE(r.error().message.find("compressed byte"), std::string::npos);
}

TEST(File, LocatesOffsets) {
  auto lc = LocateOffset("ab\ncd\nef", 4);
  EXPECT_EQ(lc.line, 2u);
  EXPECT_EQ(lc.col, 2u);
}

TEST(File, MissingFileIsAnError) {
  auto r = ReadFile("/nonexistent/commdx");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().ToString(), "/nonexistent/commdx: error: no such file or folder");
}

TEST(Diagnostics, CountsAndKeepsFirstLocation) {
  Diagnostics d;
  d.Add("nccl_log.long_line", DiagSeverity::kWarning, "first", {"a.log", 3});
  d.Add("nccl_log.long_line", DiagSeverity::kWarning, "second", {"a.log", 9});
  d.Add("nccl_log.unknown_line", DiagSeverity::kNote, "other", {"b.log", 1});
  ASSERT_EQ(d.entries().size(), 2u);
  EXPECT_EQ(d.Count("nccl_log.long_line"), 2u);
  EXPECT_EQ(d.entries()[0].first.line, 3u);
  EXPECT_EQ(d.entries()[0].message, "first");
}

TEST(JsonWriter, EscapesAndNests) {
  JsonWriter w(0);
  w.BeginObject();
  w.Key("s").String("a\"b</script>\n");
  w.Key("n").Double(1.0 / 3, 2);
  w.Key("nan").Double(0.0 / 0.0);
  w.Key("l").BeginArray().Int(1).Int(2).EndArray();
  w.EndObject();
  EXPECT_EQ(w.str(), R"({"s":"a\"b\u003c/script>\n","n":0.33,"nan":null,"l":[1,2]})");
  // Every byte that needs escaping, at the start, between runs and at the end (other control
  // bytes and broken UTF-8 were made '?' by SanitizeUtf8 first); keys as values.
  EXPECT_EQ(JsonWriter::Escape("\\x\ty\r\x01z\x1f<\"\xff"), R"(\\x\ty\r?z?\u003c\"?)");
  // Printable ASCII goes through as it is; DEL and UTF-8 the long way.
  EXPECT_EQ(JsonWriter::Escape(" plain ~text 0-9 "), " plain ~text 0-9 ");
  EXPECT_EQ(JsonWriter::Escape("caf\xc3\xa9 \x7f!"), "caf\xc3\xa9 ?!");
  JsonWriter k(0);
  k.BeginObject().Key("a\\b\n").String("").EndObject();
  EXPECT_EQ(k.str(), R"({"a\\b\n":""})");
}

TEST(JsonWriter, KeyEscapedOnceWritesWhatKeyWrites) {
  for (int indent : {0, 2}) {
    const JsonKey tricky("a\\b\n\"<"), plain("busy_ns");
    JsonWriter once(indent), each(indent);
    for (int row = 0; row < 2; ++row) {
      once.BeginObject().Key(tricky).Int(row).Key(plain).Double(0.5, 1).EndObject();
      each.BeginObject().Key("a\\b\n\"<").Int(row).Key("busy_ns").Double(0.5, 1).EndObject();
    }
    EXPECT_EQ(once.str(), each.str());
    EXPECT_NE(once.str().find(R"("a\\b\n\"\u003c")"), std::string::npos) << once.str();
  }
}

}  // namespace
}  // namespace commdx

namespace commdx {
namespace {

TEST(StrFormat, NeverCutsAndMatchesPrintf) {
  EXPECT_EQ(StrFormat("%.1f ms", 12.345), "12.3 ms");
  EXPECT_EQ(StrFormat("%s", ""), "");
  // Longer than the one-pass stack buffer (and than the old fixed buffers): kept whole.
  std::string name(1000, 'x');
  std::string s = StrFormat("annotation %s ends here", name.c_str());
  EXPECT_EQ(s, "annotation " + name + " ends here");
  // %.3f of 1e300 is 305 characters: the old `char buf[64]` number formatting cut it.
  EXPECT_EQ(StrFormat("%.3f", 1e300).size(), 305u);
}

// FormatFixed stands in for "%.*f" in reports: every value must come out as printf writes it,
// rounding, signs of zero, huge and tiny magnitudes included.
TEST(FormatFixed, WritesWhatPrintfWrites) {
  const double values[] = {0.0,    -0.0,    0.5,       1.5,        2.5,       -2.5,
                           0.125,  0.0005,  -0.0004,   12.345,     1e-300,    123456789.987654,
                           1e15,   1e22,    1e100,     -1e250,     1e300,     4.35e-7,
                           2.675,  1.005,   999.9995,  0.1 + 0.2,  9007199254740993.0};
  for (double v : values)
    for (int d : {0, 1, 2, 3, 6, 9}) EXPECT_EQ(FormatFixed(v, d), StrFormat("%.*f", d, v)) << v;
  std::string out = "x=";
  AppendFixed(out, 3.14159, 2);
  EXPECT_EQ(out, "x=3.14");
  // Values that scale to an integer are printed through integers where the rounding cannot be
  // in doubt: around every half of the last digit (the doubles next to it both ways), up to
  // where 10^d |v| passes 2^52, and spread values of every magnitude.
  uint64_t state = 0x9e3779b97f4a7c15ull;
  auto next = [&state]() {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return state;
  };
  int checked = 0;
  for (int d = 0; d <= 9; ++d) {
    const double unit = std::pow(10.0, -d);
    for (int i = 0; i < 2000; ++i) {
      const double half = (static_cast<double>(next() % 2000000) + 0.5) * unit;
      const double mag = std::ldexp(static_cast<double>(next() >> 11), -53) *
                         std::pow(10.0, static_cast<double>(next() % 19) - 3);
      for (double v : {half, std::nextafter(half, 0.0), std::nextafter(half, 1e300), -half, mag,
                       -mag, 4.5e15 * unit, std::nextafter(4.5e15 * unit, 0.0)}) {
        ASSERT_EQ(FormatFixed(v, d), StrFormat("%.*f", d, v)) << v << " " << d;
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 10 * 2000 * 8);
}

TEST(LineLocator, MatchesLocAtForwardAndBackward) {
  FileText f{"t.txt", "ab\ncd\n\nefg\nh"};
  LineLocator at(f);
  for (uint64_t off : {0, 1, 3, 5, 6, 7, 9, 11, 12, 40, 4, 0, 8}) {  // forward, past the end, back
    SourceLoc a = at.At(off), b = LocAt(f, off);
    EXPECT_EQ(a.line, b.line) << off;
    EXPECT_EQ(a.col, b.col) << off;
    EXPECT_EQ(a.offset, off);
    EXPECT_EQ(a.file, "t.txt");
  }
  EXPECT_EQ(at.At(7).line, 4u);
  EXPECT_EQ(at.At(9).col, 3u);
}

}  // namespace
}  // namespace commdx
