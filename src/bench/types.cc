#include "bench/types.h"

#include <cmath>

#include "base/text.h"

namespace commdx::bench {

namespace {

struct TypeName {
  DataType type;
  const char* name;
  size_t bytes;
};
constexpr TypeName kTypes[] = {
    {DataType::kInt8, "int8", 1},      {DataType::kUint8, "uint8", 1},
    {DataType::kInt32, "int32", 4},    {DataType::kUint32, "uint32", 4},
    {DataType::kInt64, "int64", 8},    {DataType::kUint64, "uint64", 8},
    {DataType::kHalf, "half", 2},      {DataType::kFloat, "float", 4},
    {DataType::kDouble, "double", 8},  {DataType::kBfloat16, "bfloat16", 2},
    {DataType::kFp8E4M3, "f8e4m3", 1}, {DataType::kFp8E5M2, "f8e5m2", 1},
};

constexpr const char* kOps[] = {"sum", "prod", "max", "min", "avg"};

}  // namespace

const char* DataTypeName(DataType t) {
  for (const auto& e : kTypes)
    if (e.type == t) return e.name;
  return "?";
}

size_t DataTypeBytes(DataType t) {
  for (const auto& e : kTypes)
    if (e.type == t) return e.bytes;
  return 1;
}

std::optional<DataType> ParseDataType(std::string_view name) {
  std::string n = ToLower(name);
  if (n == "fp32" || n == "float32" || n == "f32") return DataType::kFloat;
  if (n == "fp16" || n == "float16" || n == "f16") return DataType::kHalf;
  if (n == "bf16") return DataType::kBfloat16;
  if (n == "fp64" || n == "float64" || n == "f64") return DataType::kDouble;
  if (n == "char") return DataType::kInt8;
  if (n == "int") return DataType::kInt32;
  if (n == "fp8_e4m3" || n == "e4m3") return DataType::kFp8E4M3;
  if (n == "fp8_e5m2" || n == "e5m2") return DataType::kFp8E5M2;
  for (const auto& e : kTypes)
    if (n == e.name) return e.type;
  return std::nullopt;
}

const std::vector<DataType>& AllDataTypes() {
  static const std::vector<DataType> kAll = [] {
    std::vector<DataType> v;
    for (const auto& e : kTypes) v.push_back(e.type);
    return v;
  }();
  return kAll;
}

const char* RedOpName(RedOp op) { return kOps[static_cast<int>(op)]; }

std::optional<RedOp> ParseRedOp(std::string_view name) {
  std::string n = ToLower(name);
  for (int i = 0; i < 5; ++i)
    if (n == kOps[i]) return static_cast<RedOp>(i);
  return std::nullopt;
}

bool HasRedOp(CollectiveType k) {
  return k == CollectiveType::kAllReduce || k == CollectiveType::kReduce ||
         k == CollectiveType::kReduceScatter;
}

bool HasRoot(CollectiveType k) {
  return k == CollectiveType::kBroadcast || k == CollectiveType::kReduce;
}

bool InPlaceCheckable(CollectiveType k) {
  return k != CollectiveType::kAllToAll && k != CollectiveType::kSendRecv;
}

uint64_t CollSpec::SendElems() const {
  uint64_t n = static_cast<uint64_t>(nranks);
  switch (kind) {
    case CollectiveType::kReduceScatter:
    case CollectiveType::kAllToAll:
      return count * n;
    default:
      return count;
  }
}

uint64_t CollSpec::RecvElems() const {
  uint64_t n = static_cast<uint64_t>(nranks);
  switch (kind) {
    case CollectiveType::kAllGather:
    case CollectiveType::kAllToAll:
      return count * n;
    default:
      return count;
  }
}

uint64_t CollSpec::SizeBytes() const {
  return NcclTestsBytes(kind, count, DataTypeBytes(dtype), nranks);
}

std::string CollSpec::Describe() const {
  std::string s = std::string(CollectiveTypeName(kind)) + " " +
                  FormatBytes(static_cast<double>(SizeBytes())) + " " + DataTypeName(dtype);
  if (HasRedOp(kind)) s += std::string(" ") + RedOpName(op);
  if (HasRoot(kind)) s += " root " + std::to_string(root);
  if (kind == CollectiveType::kSendRecv && shift != 1) s += " to rank+" + std::to_string(shift);
  s += in_place ? " in-place" : " out-of-place";
  return s;
}

uint64_t CountForBytes(CollectiveType kind, DataType dtype, int nranks, uint64_t bytes) {
  return NcclTestsCount(kind, bytes, DataTypeBytes(dtype), nranks);
}

Result<uint64_t> ParseSize(std::string_view text) {
  std::string_view s = Trim(text);
  if (s.empty()) return MakeError(ErrorCode::kUsage, "empty size");
  auto v = ParseByteSize(s);
  if (!v)
    return MakeError(ErrorCode::kUsage, "bad size '" + std::string(text) +
                                            "': expected a number with an optional K, M or G");
  return *v;
}

std::vector<uint64_t> SweepSizes(uint64_t min_bytes, uint64_t max_bytes, double factor,
                                 uint64_t step_bytes) {
  std::vector<uint64_t> sizes;
  if (max_bytes < min_bytes) return sizes;
  if (factor > 1) {
    for (double s = static_cast<double>(min_bytes); s <= static_cast<double>(max_bytes) * 1.0000001;
         s = (s == 0 ? 1 : s * factor))
      sizes.push_back(static_cast<uint64_t>(s));
  } else {
    uint64_t step = step_bytes ? step_bytes : (max_bytes - min_bytes) / 10;
    if (step == 0) return {min_bytes};
    for (uint64_t s = min_bytes; s <= max_bytes; s += step) sizes.push_back(s);
  }
  return sizes;
}

}  // namespace commdx::bench
