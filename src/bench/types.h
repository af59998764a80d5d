// What one benchmarked operation is: the collective (model/collective.h), element type, reduction,
// root, element count and buffer placement, with nccl-tests' conventions for sizes and bus
// bandwidth.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "model/collective.h"

namespace commdx::bench {

// Values equal NCCL's ncclRedOp_t / ncclDataType_t so the real backend can pass them through.
enum class RedOp : int { kSum = 0, kProd = 1, kMax = 2, kMin = 3, kAvg = 4 };

enum class DataType : int {
  kInt8 = 0,
  kUint8 = 1,
  kInt32 = 2,
  kUint32 = 3,
  kInt64 = 4,
  kUint64 = 5,
  kHalf = 6,
  kFloat = 7,
  kDouble = 8,
  kBfloat16 = 9,
  kFp8E4M3 = 10,  // NCCL >= 2.24
  kFp8E5M2 = 11,  // NCCL >= 2.24
};

const char* DataTypeName(DataType t);  // nccl-tests spelling: "float", "bfloat16", "half", ...
size_t DataTypeBytes(DataType t);
std::optional<DataType> ParseDataType(std::string_view name);  // also "fp32", "bf16", "f16"
const std::vector<DataType>& AllDataTypes();

const char* RedOpName(RedOp op);  // "sum", "prod", "max", "min", "avg"
std::optional<RedOp> ParseRedOp(std::string_view name);

bool HasRedOp(CollectiveType k);  // all_reduce, reduce, reduce_scatter
bool HasRoot(CollectiveType k);   // broadcast, reduce
// True when nccl-tests can verify the in-place variant (alltoall / sendrecv in-place overlap).
bool InPlaceCheckable(CollectiveType k);

struct CollSpec {
  CollectiveType kind = CollectiveType::kAllReduce;
  DataType dtype = DataType::kFloat;
  RedOp op = RedOp::kSum;
  int root = 0;
  // send_recv: each rank sends to rank + shift and receives from rank - shift (mod nranks), as
  // nccl-tests' sendrecv does with shift 1; bench replay sets the job's peer offset.
  int shift = 1;
  uint64_t count = 0;  // nccl-tests "count": elements per rank parameter
  bool in_place = false;
  int nranks = 1;

  // Elements each rank sends / receives (buffer extents), in elements.
  uint64_t SendElems() const;
  uint64_t RecvElems() const;
  // nccl-tests "size" column: bytes of the whole operation as nccl-tests counts them.
  uint64_t SizeBytes() const;
  std::string Describe() const;  // "all_reduce 8.00 GiB float sum out-of-place"
};

// Element count for a requested size in bytes (rounded down as nccl-tests does).
uint64_t CountForBytes(CollectiveType kind, DataType dtype, int nranks, uint64_t bytes);

// "8", "64K", "8M", "8G" (binary multiples, as nccl-tests reads them); "1.5G" is allowed.
Result<uint64_t> ParseSize(std::string_view text);

// nccl-tests' sweep: from min to max, multiplying by factor (>1) or adding step_bytes.
std::vector<uint64_t> SweepSizes(uint64_t min_bytes, uint64_t max_bytes, double factor,
                                 uint64_t step_bytes);

}  // namespace commdx::bench
