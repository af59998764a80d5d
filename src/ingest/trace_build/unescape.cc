#include "ingest/trace_build/unescape.h"

#include <cstdint>

#include "base/text.h"

namespace commdx::ingest::trace_build {

std::string JsonUnescape(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  auto hex4 = [&raw](size_t at) -> int64_t {
    if (at + 4 > raw.size()) return -1;
    int64_t v = 0;
    for (size_t k = at; k < at + 4; ++k) {
      char c = raw[k];
      int d = c >= '0' && c <= '9'   ? c - '0'
              : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                     : -1;
      if (d < 0) return -1;
      v = v * 16 + d;
    }
    return v;
  };
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c != '\\' || i + 1 >= raw.size()) {
      out += c;
      continue;
    }
    char e = raw[++i];
    switch (e) {
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        int64_t cp = hex4(i + 1);
        if (cp < 0) {
          out += '?';
          break;
        }
        i += 4;
        if (cp >= 0xD800 && cp < 0xDC00 && i + 2 < raw.size() && raw[i + 1] == '\\' &&
            raw[i + 2] == 'u') {
          int64_t lo = hex4(i + 3);
          if (lo >= 0xDC00 && lo < 0xE000) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            i += 6;
          }
        }
        AppendUtf8(out, static_cast<uint32_t>(cp));
        break;
      }
      default:
        out += e;  // \" \\ \/ and anything else as itself
    }
  }
  return out;
}

}  // namespace commdx::ingest::trace_build
