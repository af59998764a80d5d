// NCCL's own NVTX ranges in an Nsight Systems export: one push/pop range per NCCL API call in the
// domain "NCCL" (ncclAllReduce, ncclCommInitRankConfig, ...), each with an extended payload whose
// layout NCCL registers as a schema (NCCL's src/include/nvtx_payload_schemas.h):
//   collectives   "NCCL communicator ID" u64, "Message size [bytes]" size_t (one rank's buffer:
//                 the send buffer of all_gather, the receive buffer of reduce_scatter), then
//                 "Reduction operation" / "Root" / "Peer rank"
//   comm init     "NCCL communicator ID", "No. of ranks" int, "Rank" int, "CUDA device" int
// `nsys export` writes the payloads only when asked:
//   --include-json true    NVTX_EVENTS.jsonText: {"NCCL communicator ID":1477...,"Message size
//                          [bytes]":4194304,"Reduction operation":"Sum"}
//   --include-blobs true   NVTX_EVENTS.binaryData: u64 count, then per payload u64 schema id,
//                          u64 size, u64 offset of its bytes in the blob (as nsys 2025.3 writes
//                          it); decoded through NVTX_PAYLOAD_SCHEMA_ENTRIES (name, type, offset)
// Without either the payload columns are NULL and only the API name is known.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "ingest/nsys/sqlite_db.h"

namespace commdx::ingest::nsys {

// The fields of one call's payload that commdx uses; -1 / empty where absent.
struct NcclPayload {
  uint64_t comm = 0;
  bool has_comm = false;
  int64_t bytes = -1;
  int64_t nranks = -1;
  int64_t rank = -1;
  int64_t root = -1;
  int64_t peer = -1;
  int64_t device = -1;
  bool any = false;  // some field was read
};

// Reads the flat JSON object of --include-json. False if it is not one (nothing is guessed).
bool ParseNcclPayloadJson(std::string_view json, NcclPayload& out);

// What an NCCL API range is.
enum class NcclCallKind : uint8_t { kOther, kCollective, kCommInit };
struct NcclCallName {
  NcclCallKind kind = NcclCallKind::kOther;
  std::string_view coll;  // the name PyTorch's profiler gives the collective ("allreduce", ...)
};
NcclCallName ClassifyNcclCall(std::string_view api_name);

// The payload schemas of the export, for decoding --include-blobs payloads.
class PayloadSchemas {
 public:
  // Reads NVTX_PAYLOAD_SCHEMA_ENTRIES (and NVTX_PAYLOAD_ENUMS for the size of enum entries);
  // an export without them decodes nothing.
  Status Load(const Database& db, const std::set<std::string, std::less<>>& tables);
  // Decodes the blob's payloads whose schema is known. False if the blob is malformed.
  bool Decode(std::string_view blob, NcclPayload& out) const;
  bool empty() const { return entries_.empty(); }

 private:
  struct Entry {
    std::string name;
    int64_t type = 0;
    uint64_t offset = 0;
  };
  int Size(int64_t type) const;                    // bytes of an entry of `type`; 0 if unknown
  std::map<int64_t, std::vector<Entry>> entries_;  // schema id -> entries
  std::map<int64_t, int> enum_sizes_;              // enum schema id -> bytes
};

}  // namespace commdx::ingest::nsys
