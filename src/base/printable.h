// Text from inputs (file names, log lines) made safe for a terminal or a one-line field.
#pragma once

#include <string>
#include <string_view>

namespace commdx {

// Valid UTF-8 where every control character a terminal would act on is shown instead: CR, ESC,
// BEL, backspace, DEL and the C1 controls (U+0080..U+009F, e.g. the 8-bit CSI) become "\r",
// "\x1b", ...; invalid UTF-8 bytes become '?'. Tab stays. A newline stays only when
// `keep_newlines` (multi-line prose), else it is shown as "\n" (file names, table cells).
std::string Printable(std::string_view s, bool keep_newlines = false);

}  // namespace commdx
