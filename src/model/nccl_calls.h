// What NCCL_DEBUG_SUBSYS=COLL (and TUNING) lines say about the collectives a job issued: per
// communicator and rank, the sequence of calls with their opCount, size and datatype, and the
// algorithm/protocol NCCL picked where rank 0 logged it. Format-free: the NCCL log importer
// fills it (docs/nccl-log-grammar.md, "COLL and TUNING lines").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/collective.h"

namespace commdx {

// ncclDataType_t as NCCL numbers it (nccl.h; unchanged 2.10 - 2.28): 0 int8 ... 9 bfloat16,
// 10 float8e4m3, 11 float8e5m2.
const char* NcclDataTypeName(int dtype);  // "float32"; "unknown"
int NcclDataTypeBytes(int dtype);         // 0 when unknown

// The algorithm/protocol of a TUNING line, by name (2.24+) or number (2.20 - 2.23).
enum class NcclAlgo : uint8_t {
  kUnknown,
  kTree,
  kRing,
  kCollNetDirect,
  kCollNetChain,
  kNvls,
  kNvlsTree,
  kPat
};
enum class NcclProto : uint8_t { kUnknown, kLL, kLL128, kSimple };

// One "AllReduce: opCount 3 ... count 1024 datatype 7 op 0 root 0 comm 0x.. [nranks=2] ..."
// line. Calls of one group share an opCount (NCCL counts group launches, not calls).
struct NcclCall {
  uint64_t op_count = 0;
  uint64_t count = 0;  // elements (per rank for all_gather / reduce_scatter, as NCCL takes it)
  CollectiveType type = CollectiveType::kUnknown;
  int8_t dtype = -1;
  int8_t red_op = -1;  // ncclRedOp_t: 0 sum, 1 prod, 2 max, 3 min, 4 avg, >= 5 user-defined
  int32_t root = -1;   // root rank; the peer of send/recv
  NcclAlgo algo = NcclAlgo::kUnknown;
  NcclProto proto = NcclProto::kUnknown;
  uint32_t line = 0;  // 1-based line in the stream's file

  uint64_t bytes() const { return count * static_cast<uint64_t>(NcclDataTypeBytes(dtype)); }
};

// The calls one rank of one communicator logged, in log order.
struct NcclCallStream {
  // The communicator's id as in NcclSetup::communicators; "?0x55.." (its pointer) when no init
  // line named the communicator, so that it cannot be matched with other ranks.
  std::string comm_id;
  bool identified = true;
  int rank = -1;  // -1 when no init line named it
  int nranks = 0;
  std::string host;
  int64_t pid = 0;
  int cuda_dev = -1;
  std::string file;
  std::vector<NcclCall> calls;
};

}  // namespace commdx
