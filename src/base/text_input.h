// Text as other tools write it, made uniform before any importer looks at it.
#pragma once

#include <string>

namespace commdx {

// Drops a UTF-8 byte-order mark at the start (Windows editors and PowerShell's `>` write one;
// no format commdx reads allows it, so every sniffer would miss the file), and turns the line
// ends of a file that uses a lone CR for every line end (classic Mac, some serial consoles) into
// LF, so that every line-based importer sees lines. A file with any LF keeps its CRs: a lone CR
// there is a progress bar redrawing its line, and line numbers must match what editors show.
// Lengths other than the BOM's are unchanged, so offsets stay valid.
void NormalizeInputText(std::string& text);

}  // namespace commdx
