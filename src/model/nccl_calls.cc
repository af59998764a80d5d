#include "model/nccl_calls.h"

namespace commdx {

namespace {

struct TypeInfo {
  const char* name;
  int bytes;
};
constexpr TypeInfo kTypes[] = {
    {"int8", 1},    {"uint8", 1},    {"int32", 4},      {"uint32", 4},
    {"int64", 8},   {"uint64", 8},   {"float16", 2},    {"float32", 4},
    {"float64", 8}, {"bfloat16", 2}, {"float8e4m3", 1}, {"float8e5m2", 1},
};
constexpr int kNumTypes = sizeof(kTypes) / sizeof(kTypes[0]);

}  // namespace

const char* NcclDataTypeName(int dtype) {
  if (dtype >= 0 && dtype < kNumTypes) return kTypes[dtype].name;
  return "unknown";
}

int NcclDataTypeBytes(int dtype) {
  return dtype >= 0 && dtype < kNumTypes ? kTypes[dtype].bytes : 0;
}

}  // namespace commdx
