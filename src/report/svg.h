// Inline SVG for the HTML report: timelines, bar histograms, x–y line plots.
#pragma once

#include <string>
#include <string_view>

#include "report/charts.h"

namespace commdx::report {

// Escapes text for HTML element content and attribute values.
std::string HtmlEscape(std::string_view raw);

std::string SvgTimeline(const Timeline& t);
std::string SvgHistogram(const Histogram& h);
std::string SvgXY(const XYChart& c);

}  // namespace commdx::report
