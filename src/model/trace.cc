#include "model/trace.h"

namespace commdx {

int DtypeBytes(std::string_view d) {
  struct Entry {
    std::string_view name;
    int bytes;
  };
  // c10 ScalarType names as Kineto writes them in "dtype".
  static constexpr Entry kTable[] = {
      {"Float", 4},
      {"BFloat16", 2},
      {"Half", 2},
      {"Double", 8},
      {"Int", 4},
      {"Long", 8},
      {"Short", 2},
      {"Byte", 1},
      {"Char", 1},
      {"Bool", 1},
      {"ComplexFloat", 8},
      {"ComplexDouble", 16},
      {"ComplexHalf", 4},
      {"Float8_e4m3fn", 1},
      {"Float8_e5m2", 1},
      {"Float8_e4m3fnuz", 1},
      {"Float8_e5m2fnuz", 1},
      {"UInt16", 2},
      {"UInt32", 4},
      {"UInt64", 8},
      {"QInt8", 1},
      {"QUInt8", 1},
      {"QInt32", 4},
  };
  for (const auto& e : kTable)
    if (e.name == d) return e.bytes;
  return 0;
}

const char* StepSourceName(StepSource s) {
  switch (s) {
    case StepSource::kNone:
      return "none";
    case StepSource::kProfilerStep:
      return "ProfilerStep";
    case StepSource::kAnnotation:
      return "annotation";
    case StepSource::kOptimizer:
      return "Optimizer.step";
    case StepSource::kCollectives:
      return "collectives";
    case StepSource::kWholeTrace:
      return "whole trace";
  }
  return "none";
}

}  // namespace commdx
