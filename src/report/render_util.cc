#include "report/render_util.h"

#include <algorithm>
#include <cmath>

#include "base/str_format.h"
#include "base/text.h"

namespace commdx::report {

std::string FormatMetric(const Metric& m) {
  switch (m.unit) {
    case Unit::kNs:
      return FormatDurationNs(m.value);
    case Unit::kBytes:
      return FormatBytes(m.value);
    default:
      break;
  }
  double a = std::fabs(m.value);
  int decimals = (a == std::floor(a) && a < 1e15) ? 0 : a >= 100 ? 1 : a >= 1 ? 2 : 3;
  std::string s = FormatFixed(m.value, decimals);
  if (m.unit == Unit::kNone) return s;
  return s + (m.unit == Unit::kPercent ? "" : " ") + UnitName(m.unit);
}

std::string FormatPercent(double fraction) { return StrFormat("%.0f%%", fraction * 100); }

std::string SavingPhrase(double saving_ns, double step_ns) {
  // Under a microsecond is nothing this profile can measure: no "about 0 ns (0%)".
  if (saving_ns < 1000) return "saves nothing measurable per step";
  std::string out = "saves about " + FormatDurationNs(saving_ns) + " per step";
  if (step_ns > 0) {
    const double share = saving_ns / step_ns;
    out +=
        " (" + (share < 0.005 ? std::string("under 1%") : FormatPercent(share)) + " of the step)";
  }
  return out;
}

std::string SavingOf(const Finding& f) {
  if (!f.saving_ns_per_step) return "";
  return SavingPhrase(*f.saving_ns_per_step, f.step_ns.value_or(0));
}

std::string PowerOfTwoLabel(int k) {
  static const char* kUnits[] = {"", "K", "M", "G", "T", "P", "E"};
  if (k < 0 || k > 63) return k < 0 ? "0" : "inf";
  int unit = std::min(k / 10, 6);
  return std::to_string(1ull << (k - 10 * unit)) + kUnits[unit];
}

}  // namespace commdx::report
