#include "base/text_input.h"

#include "base/text.h"

#include <algorithm>
#include <cstdint>
#include <string_view>

namespace commdx {

namespace {

enum class Utf16 { kNo, kLittle, kBig };

// The first code units of UTF-16 text without a BOM: printable ASCII, whitespace or ESC (the
// colour codes of a tool run on a terminal: nvidia-smi underlines its matrix's header), high
// byte 0.
bool LooksUtf16Ascii(std::string_view t, bool little) {
  constexpr size_t kUnits = 64;
  if (t.size() < 2 * 8) return false;  // too short to tell
  const size_t units = std::min(kUnits, t.size() / 2);
  for (size_t i = 0; i < units; ++i) {
    auto lo = static_cast<unsigned char>(t[2 * i + (little ? 0 : 1)]);
    auto hi = static_cast<unsigned char>(t[2 * i + (little ? 1 : 0)]);
    bool text = (lo >= 0x20 && lo < 0x7f) || lo == '\n' || lo == '\r' || lo == '\t' || lo == 0x1b;
    if (hi != 0 || !text) return false;
  }
  return true;
}

Utf16 DetectUtf16(std::string_view t, size_t* bom) {
  *bom = 0;
  if (t.size() >= 2 && t[0] == '\xFF' && t[1] == '\xFE') {
    if (t.size() >= 4 && t[2] == '\0' && t[3] == '\0') return Utf16::kNo;  // UTF-32LE
    *bom = 2;
    return Utf16::kLittle;
  }
  if (t.size() >= 2 && t[0] == '\xFE' && t[1] == '\xFF') return *bom = 2, Utf16::kBig;
  if (LooksUtf16Ascii(t, true)) return Utf16::kLittle;
  if (LooksUtf16Ascii(t, false)) return Utf16::kBig;
  return Utf16::kNo;
}

std::string Utf16ToUtf8(std::string_view t, bool little) {
  std::string out;
  out.reserve(t.size() / 2 + t.size() / 8);
  auto unit = [&](size_t i) -> uint32_t {
    auto a = static_cast<unsigned char>(t[i]), b = static_cast<unsigned char>(t[i + 1]);
    return little ? (a | (b << 8)) : ((a << 8) | b);
  };
  constexpr uint32_t kReplacement = 0xFFFD;
  const size_t n = t.size() & ~size_t{1};  // an odd last byte: cut off in a head read
  for (size_t i = 0; i < n; i += 2) {
    uint32_t u = unit(i);
    if (u >= 0xD800 && u < 0xDC00) {  // high surrogate: needs a low one next
      if (i + 2 >= n) break;          // the pair is cut at the end
      uint32_t low = unit(i + 2);
      if (low >= 0xDC00 && low < 0xE000) {
        AppendUtf8(out, 0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00));
        i += 2;
        continue;
      }
      u = kReplacement;
    } else if (u >= 0xDC00 && u < 0xE000) {
      u = kReplacement;
    }
    AppendUtf8(out, u);
  }
  return out;
}

}  // namespace

const char* NormalizeInputText(std::string& text) {
  const char* converted = nullptr;
  size_t bom = 0;
  if (Utf16 u = DetectUtf16(text, &bom); u != Utf16::kNo) {
    text = Utf16ToUtf8(std::string_view(text).substr(bom), u == Utf16::kLittle);
    converted = u == Utf16::kLittle ? "UTF-16LE" : "UTF-16BE";
  }
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (std::string_view(text).substr(0, kBom.size()) == kBom) text.erase(0, kBom.size());
  if (text.find('\n') != std::string::npos || text.find('\r') == std::string::npos)
    return converted;
  std::replace(text.begin(), text.end(), '\r', '\n');
  return converted;
}

}  // namespace commdx
