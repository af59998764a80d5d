#include "model/bench_result.h"

namespace commdx {

double BusBwFactor(std::string_view case_key, int nranks) {
  if (nranks <= 0) return 1.0;
  double n = nranks;
  if (case_key == "all_reduce") return 2.0 * (n - 1) / n;
  if (case_key == "all_gather" || case_key == "reduce_scatter" || case_key == "alltoall")
    return (n - 1) / n;
  return 1.0;
}

}  // namespace commdx
