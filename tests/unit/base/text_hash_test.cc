#include "base/text_hash.h"

#include <gtest/gtest.h>

#include <string>

namespace commdx {
namespace {

uint64_t HashOf(std::string_view text) {
  TextHash h;
  h.Add(text);
  return h.Value();
}

TEST(TextHash, SameValueWhateverThePieces) {
  std::string text;
  for (int i = 0; i < 200; ++i) text += "vm:653:653 [0] NCCL INFO line " + std::to_string(i) + "\n";
  const uint64_t whole = HashOf(text);
  for (size_t a = 0; a < 40; ++a)
    for (size_t b = a; b < text.size(); b += 997) {
      TextHash h;
      h.Add(text.substr(0, a));
      h.Add(text.substr(a, b - a));
      h.Add("");
      h.Add(text.substr(b));
      ASSERT_EQ(h.Value(), whole) << a << " " << b;
      ASSERT_EQ(h.bytes(), text.size());
    }
}

TEST(TextHash, TellsTextsApart) {
  EXPECT_NE(HashOf(""), HashOf(std::string(1, '\0')));
  EXPECT_NE(HashOf("abc"), HashOf(std::string("abc\0", 4)));
  EXPECT_NE(HashOf("abcdefgh"), HashOf("abcdefgi"));
  EXPECT_NE(HashOf("abcdefghXabcdefgh"), HashOf("abcdefghYabcdefgh"));
  EXPECT_NE(HashOf("ab"), HashOf("ba"));
  // A prefix is not the whole.
  EXPECT_NE(HashOf("line 1\nline 2\n"), HashOf("line 1\n"));
}

}  // namespace
}  // namespace commdx
