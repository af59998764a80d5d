// The kind of a collective, one type for every layer: the trace model (Kineto), live benchmarks
// and nccl-tests results. Keys are nccl-tests' spelling ("all_reduce", "alltoall", "sendrecv"),
// which are also the bench case keys.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace commdx {

enum class CollectiveType : uint8_t {
  kUnknown,
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kAllToAll,
  kBroadcast,
  kReduce,
  kGather,
  kScatter,
  kSend,
  kRecv,
  kSendRecv,  // both directions in one operation (ncclDevKernel_SendRecv, nccl-tests sendrecv)
  kBarrier,
};

const char* CollectiveTypeName(CollectiveType t);  // "all_reduce", "send", ...; "unknown"
// The inverse of CollectiveTypeName, exact spelling only; nullopt for anything else ("unknown"
// included).
std::optional<CollectiveType> ParseCollectiveType(std::string_view key);
bool IsPointToPoint(CollectiveType t);  // send, recv, sendrecv

// nccl-tests' bus-bandwidth factor (busbw = algbw x factor; docs/bench-method.md): all_reduce
// 2(n-1)/n; all_gather, reduce_scatter, alltoall (and gather, scatter) (n-1)/n; broadcast, reduce,
// send, recv, sendrecv 1. n = 1 follows the formulas as nccl-tests does (all_reduce on one rank: 0,
// broadcast: 1). 0 where no factor is defined: barrier, unknown, or an unknown rank count (n < 1),
// so a bus bandwidth is never invented; callers treat 0 as "no bus bandwidth".
double BusBwFactor(CollectiveType t, int nranks);

// nccl-tests' convention for an operation's size: NCCL's count argument is per rank for
// all_gather (sent) and reduce_scatter (received), per peer for alltoall, so those sizes are
// count x element bytes x ranks; every other kind's is count x element bytes. 0 where the
// element size or (for the per-rank kinds) the rank count is not known.
bool CountIsPerRank(CollectiveType t);
uint64_t NcclTestsBytes(CollectiveType t, uint64_t count, uint64_t elem_bytes, int nranks);
// Its inverse, rounded down (nccl-tests' count for a requested size).
uint64_t NcclTestsCount(CollectiveType t, uint64_t bytes, uint64_t elem_bytes, int nranks);

}  // namespace commdx
