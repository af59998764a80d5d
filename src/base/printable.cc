#include "base/printable.h"

#include "base/str_format.h"
#include "base/text.h"

namespace commdx {

namespace {

void Show(unsigned code, std::string& out) {
  switch (code) {
    case '\n':
      out += "\\n";
      return;
    case '\r':
      out += "\\r";
      return;
    default:
      out += StrFormat(code < 0x100 ? "\\x%02x" : "\\u%04x", code);
  }
}

}  // namespace

std::string Printable(std::string_view s, bool keep_newlines) {
  std::string valid = SanitizeUtf8(s), out;
  out.reserve(valid.size());
  for (size_t i = 0; i < valid.size(); ++i) {
    auto c = static_cast<unsigned char>(valid[i]);
    // SanitizeUtf8 already replaced the other C0 controls and DEL; C1 is U+0080..U+009F,
    // encoded 0xC2 0x80..0x9F.
    if (c == 0xC2 && i + 1 < valid.size() && static_cast<unsigned char>(valid[i + 1]) < 0xA0) {
      Show(0x80 + (static_cast<unsigned char>(valid[i + 1]) & 0x1F), out);
      ++i;
    } else if (c == '\r' || (c == '\n' && !keep_newlines)) {
      Show(c, out);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace commdx
