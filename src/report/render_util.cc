#include "report/render_util.h"

#include <algorithm>
#include <cmath>

#include "base/str_format.h"
#include "base/text.h"

namespace commdx::report {

std::string FormatMetric(const Metric& m) {
  if (m.unit == "ns") return FormatDurationNs(m.value);
  if (m.unit == "bytes" || m.unit == "B") return FormatBytes(m.value);
  double a = std::fabs(m.value);
  int decimals = (a == std::floor(a) && a < 1e15) ? 0 : a >= 100 ? 1 : a >= 1 ? 2 : 3;
  std::string s = StrFormat("%.*f", decimals, m.value);
  if (!m.unit.empty()) s += (m.unit == "%" ? "" : " ") + m.unit;
  return s;
}

std::string FormatPercent(double fraction) { return StrFormat("%.0f%%", fraction * 100); }

std::string PowerOfTwoLabel(int k) {
  static const char* kUnits[] = {"", "K", "M", "G", "T", "P", "E"};
  if (k < 0 || k > 63) return k < 0 ? "0" : "inf";
  int unit = std::min(k / 10, 6);
  return std::to_string(1ull << (k - 10 * unit)) + kUnits[unit];
}

}  // namespace commdx::report
