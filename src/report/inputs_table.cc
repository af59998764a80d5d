#include "report/inputs_table.h"

namespace commdx::report {

void AddInputsTable(const std::vector<InputFile>& inputs, Report& report) {
  Table t{"inputs", "Inputs", {"file", "recognised as", "bytes"}, {"path", "kind", "bytes"},
          {},       ""};
  for (const auto& in : inputs)
    t.AddRow({in.path, InputKindsName(in.kinds), Cell::Int(static_cast<long long>(in.bytes))});
  report.tables.push_back(std::move(t));
}

}  // namespace commdx::report
