// The one gzip reader (base/gzip_stream.h), read in pieces of any size.
#include "base/gzip_stream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "../gzip_text.h"

namespace commdx {
namespace {

// Feeds `compressed` `chunk` bytes at a time (after `head`), reads `out_chunk` at a time.
struct Inflated {
  std::string text;
  bool cut = false;
  std::string error;
};

Inflated Inflate(const std::string& compressed, size_t chunk, size_t out_chunk, size_t head = 0) {
  size_t pos = head;
  GzipStream gz(
      "t.gz",
      [&](char* dst, size_t n) -> Result<size_t> {
        const size_t k = std::min({n, chunk, compressed.size() - pos});
        std::memcpy(dst, compressed.data() + pos, k);
        pos += k;
        return k;
      },
      std::string_view(compressed).substr(0, head));
  Inflated r;
  std::string buf(out_chunk, '\0');
  while (true) {
    auto got = gz.Read(buf.data(), buf.size());
    if (!got) {
      r.error = got.error().message;
      break;
    }
    if (*got == 0) break;
    r.text.append(buf.data(), *got);
  }
  r.cut = gz.cut_short();
  EXPECT_EQ(gz.inflated(), r.text.size());
  return r;
}

std::string Text() {
  std::string s;
  for (int i = 0; i < 20000; ++i) s += "vm:653:653 [0] NCCL INFO line " + std::to_string(i) + "\n";
  return s;
}

TEST(GzipStream, AnyPieceSizesGiveTheSameText) {
  const std::string text = Text();
  const std::string gz = GzipString(text);
  for (size_t chunk : {size_t{1}, size_t{7}, size_t{4096}, gz.size()})
    for (size_t out : {size_t{1}, size_t{333}, size_t{1} << 20}) {
      if (chunk == 1 && out == 1) continue;  // slow, and covered by its neighbours
      Inflated r = Inflate(gz, chunk, out, 2);
      EXPECT_EQ(r.text, text) << chunk << " " << out;
      EXPECT_FALSE(r.cut);
      EXPECT_TRUE(r.error.empty()) << r.error;
    }
}

TEST(GzipStream, EveryMemberIsReadAndTrailingJunkIsNot) {
  const std::string gz = GzipString("first\n") + GzipString("second\n");
  EXPECT_EQ(Inflate(gz, 3, 64).text, "first\nsecond\n");
  EXPECT_EQ(Inflate(gz + "not gzip", 1 << 20, 64).text, "first\nsecond\n");
}

TEST(GzipStream, AStreamCutShortEndsTheDataAndSaysSo) {
  const std::string text = Text();
  const std::string gz = GzipString(text);
  Inflated r = Inflate(gz.substr(0, gz.size() / 2), 4096, 4096);
  EXPECT_TRUE(r.cut);
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_GT(r.text.size(), 0u);
  EXPECT_EQ(r.text, text.substr(0, r.text.size()));
  Inflated trailer = Inflate(gz.substr(0, gz.size() - 4), 4096, 4096);  // only the size missing
  EXPECT_TRUE(trailer.cut);
}

TEST(GzipStream, CorruptDataIsAnErrorWithItsCompressedOffset) {
  std::string gz = GzipString(Text());
  gz[gz.size() - 6] ^= 0x55;  // the CRC-32 in the trailer
  Inflated r = Inflate(gz, 4096, 4096);
  EXPECT_NE(r.error.find("corrupt gzip data"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("at compressed byte"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace commdx
