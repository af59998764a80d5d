#include "model/bench_result.h"

namespace commdx {

const char* BenchLinkName(BenchLink l) {
  switch (l) {
    case BenchLink::kUnknown:
      return "";
    case BenchLink::kNvLink:
      return "nvlink";
    case BenchLink::kPcie:
      return "pcie";
    case BenchLink::kHost:
      return "host";
  }
  return "";
}

const char* BenchSourceName(BenchSource s) {
  return s == BenchSource::kNcclTests ? "nccl-tests" : "commdx";
}

}  // namespace commdx
