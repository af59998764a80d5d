// Formatting shared by the renderers.
#pragma once

#include <string>

#include "model/finding.h"

namespace commdx::report {

// "21.0 GB/s", "1.20 ms" (for unit "ns"), "3 channels".
std::string FormatMetric(const Metric& m);
std::string FormatPercent(double fraction);  // 0.42 -> "42%"
// "saves about 18.2 ms per step (73% of the step)"; the share only when the step is known.
std::string SavingPhrase(double saving_ns, double step_ns);
// A finding's saving as SavingPhrase says it; "" when it has none.
std::string SavingOf(const Finding& f);
// 2^k as a short axis label: "512", "4K", "16M", "2G" (k < 0: "0").
std::string PowerOfTwoLabel(int k);

}  // namespace commdx::report
