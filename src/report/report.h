// One Report value that every renderer reads: what was read, the tables a command shows, the
// ranked findings and root cause, the input-quality table, and what could not be checked.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/diagnostics.h"
#include "diagnose/diagnosis.h"
#include "model/job.h"
#include "report/charts.h"

namespace commdx::report {

// 2: findings carry saving_per_step_ns, step_ns and per_rank (1 had cost_per_step_ns); the
// root cause its saving and whether one cause explains most of the loss.
inline constexpr int kSchemaVersion = 2;

// A table cell: text for people, and a number for JSON where the cell is numeric.
struct Cell {
  std::string text;
  std::optional<double> number;
  int decimals = 0;  // for JSON when number is set

  Cell() = default;
  Cell(std::string t) : text(std::move(t)) {}  // NOLINT
  Cell(const char* t) : text(t) {}             // NOLINT
  static Cell Num(double v, int decimals = 0);
  static Cell Int(long long v);
};

struct Table {
  std::string key;                       // JSON key, snake_case, units in the name where numeric
  std::string title;                     // heading for people
  std::vector<std::string> columns;      // headers for people
  std::vector<std::string> column_keys;  // JSON keys, same length as columns
  std::vector<std::vector<Cell>> rows;
  std::string note;  // optional line under the table

  void AddRow(std::vector<Cell> row) { rows.push_back(std::move(row)); }
};

struct Report {
  std::string command;  // "logs", "diagnose", ...
  std::string tool_version;
  std::vector<InputFile> inputs;
  std::vector<SkippedInput> skipped;
  std::vector<Table> tables;
  diagnose::Diagnosis diagnosis;
  Diagnostics quality;
  Charts charts;                   // drawn by the HTML renderer only
  bool include_root_cause = true;  // from Diagnosis::root_cause_named
};

Report MakeReport(std::string command, const Job& job, diagnose::Diagnosis diagnosis);

bool HasErrorFindings(const Report& report);
// What renderers say when there is no finding: "nothing found" only if every input was read
// whole; otherwise that part of it was not analysed (silence about skipped input is not health).
std::string NoFindingsText(const Report& report);

}  // namespace commdx::report
