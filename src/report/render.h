// Renderers: pure functions Report -> text.
#pragma once

#include <string>

#include "report/report.h"

namespace commdx::report {

struct TextOptions {
  bool color = false;    // ANSI colours (only when writing to a TTY)
  bool verbose = false;  // all evidence lines instead of the first few
};

std::string RenderText(const Report& report, const TextOptions& options);
std::string RenderJson(const Report& report);
std::string RenderMarkdown(const Report& report);
// One self-contained HTML file: inline CSS and SVG, no script, no network. Every input string is
// escaped.
std::string RenderHtml(const Report& report);

}  // namespace commdx::report
