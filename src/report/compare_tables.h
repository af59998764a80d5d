// Tables `commdx compare A B` shows: findings only in B (new) and only in A (gone), the numbers
// that moved by at least the threshold, the values that differ, the paths present in one only.
#pragma once

#include "diagnose/compare.h"
#include "report/report.h"

namespace commdx::report {

void AddCompareTables(const diagnose::Comparison& c, Report& report);

}  // namespace commdx::report
