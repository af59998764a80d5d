// Text as other tools write it, made uniform before any importer looks at it.
#pragma once

#include <string>

namespace commdx {

// Makes text from other tools readable by every importer:
// - UTF-16 (Windows PowerShell 5's `>` and `Out-File` write UTF-16LE with a byte-order mark;
//   some editors UTF-16BE) is converted to UTF-8: with a BOM, or without one when the first 64
//   code units are all ASCII text with a zero high byte (no UTF-8 or binary format looks like
//   that). An unpaired surrogate becomes U+FFFD; an odd last byte or a pair cut at the end (a
//   head read of a file) is dropped. Offsets then count bytes of the UTF-8 text, and line
//   numbers still match what an editor shows.
// - A UTF-8 byte-order mark at the start is dropped (Windows editors and PowerShell 7 write one;
//   no format commdx reads allows it, so every sniffer would miss the file).
// - The line ends of a file that uses a lone CR for every line end (classic Mac, some serial
//   consoles) become LF, so that every line-based importer sees lines. A file with any LF keeps
//   its CRs: a lone CR there is a progress bar redrawing its line, and line numbers must match
//   what editors show. Lengths other than the BOM's are unchanged.
// Returns the encoding converted from ("UTF-16LE", "UTF-16BE"), or nullptr when the text was
// already UTF-8 or ASCII (or binary: left as it is).
const char* NormalizeInputText(std::string& text);

}  // namespace commdx
