#include "analysis/bench_analyzers.h"
#include "base/text.h"

namespace commdx::analysis {

std::string BenchLabel(const BenchResult& r) {
  std::string s = r.case_key + " (";
  if (r.source == BenchSource::kNcclTests)
    s += "nccl-tests, " + r.file;
  else
    s += "commdx bench, " + std::to_string(r.nranks) + " ranks";
  return s + ")";
}

EvidenceRef BenchRowRef(const BenchResult& r, const BenchRow& row, const std::string& what) {
  EvidenceRef ref;
  if (r.source == BenchSource::kNcclTests) {
    ref.where = row.loc;
    ref.text = "size " + std::to_string(row.bytes) + " B: " + what;
  } else {
    ref.where.file = "commdx bench " + r.case_key;
    ref.text = FormatBytes(static_cast<double>(row.bytes)) + ": " + what;
  }
  return ref;
}

}  // namespace commdx::analysis
