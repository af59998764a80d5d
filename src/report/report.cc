#include "report/report.h"

#include <cmath>

#include "base/str_format.h"

namespace commdx::report {

Cell Cell::Num(double v, int decimals) {
  Cell c;
  c.text = std::isfinite(v) ? FormatFixed(v, decimals) : std::string("-");
  c.number = v;
  c.decimals = decimals;
  return c;
}

Cell Cell::Int(long long v) { return Num(static_cast<double>(v), 0); }

Report MakeReport(std::string command, const Job& job, diagnose::Diagnosis diagnosis) {
  Report r;
  r.command = std::move(command);
  r.tool_version = COMMDX_VERSION;
  r.inputs = job.inputs;
  r.skipped = job.skipped;
  r.include_root_cause = diagnosis.root_cause_named;
  r.diagnosis = std::move(diagnosis);
  r.quality = job.quality;
  return r;
}

bool HasErrorFindings(const Report& report) {
  for (const auto& f : report.diagnosis.findings)
    if (f.severity == Severity::kError) return true;
  return false;
}

std::string NoFindingsText(const Report& report) {
  for (const auto& e : report.quality.entries())
    if (e.severity != DiagSeverity::kNote)
      return "Nothing found in what was analysed; part of the input was not analysed or was bad "
             "(see Input quality).";
  return "Nothing found.";
}

}  // namespace commdx::report
