#include "model/collective.h"

namespace commdx {

namespace {

constexpr CollectiveType kAll[] = {
    CollectiveType::kUnknown,       CollectiveType::kAllReduce, CollectiveType::kAllGather,
    CollectiveType::kReduceScatter, CollectiveType::kAllToAll,  CollectiveType::kBroadcast,
    CollectiveType::kReduce,        CollectiveType::kGather,    CollectiveType::kScatter,
    CollectiveType::kSend,          CollectiveType::kRecv,      CollectiveType::kSendRecv,
    CollectiveType::kBarrier,
};

}  // namespace

const char* CollectiveTypeName(CollectiveType t) {
  switch (t) {
    case CollectiveType::kUnknown:
      return "unknown";
    case CollectiveType::kAllReduce:
      return "all_reduce";
    case CollectiveType::kAllGather:
      return "all_gather";
    case CollectiveType::kReduceScatter:
      return "reduce_scatter";
    case CollectiveType::kAllToAll:
      return "alltoall";
    case CollectiveType::kBroadcast:
      return "broadcast";
    case CollectiveType::kReduce:
      return "reduce";
    case CollectiveType::kGather:
      return "gather";
    case CollectiveType::kScatter:
      return "scatter";
    case CollectiveType::kSend:
      return "send";
    case CollectiveType::kRecv:
      return "recv";
    case CollectiveType::kSendRecv:
      return "sendrecv";
    case CollectiveType::kBarrier:
      return "barrier";
  }
  return "unknown";
}

std::optional<CollectiveType> ParseCollectiveType(std::string_view key) {
  for (CollectiveType t : kAll)
    if (t != CollectiveType::kUnknown && key == CollectiveTypeName(t)) return t;
  return std::nullopt;
}

bool IsPointToPoint(CollectiveType t) {
  return t == CollectiveType::kSend || t == CollectiveType::kRecv || t == CollectiveType::kSendRecv;
}

double BusBwFactor(CollectiveType t, int nranks) {
  if (nranks < 1) return 0;
  double n = nranks;
  switch (t) {
    case CollectiveType::kAllReduce:
      return 2.0 * (n - 1) / n;
    case CollectiveType::kAllGather:
    case CollectiveType::kReduceScatter:
    case CollectiveType::kAllToAll:
    case CollectiveType::kGather:
    case CollectiveType::kScatter:
      return (n - 1) / n;
    case CollectiveType::kBroadcast:
    case CollectiveType::kReduce:
    case CollectiveType::kSend:
    case CollectiveType::kRecv:
    case CollectiveType::kSendRecv:
      return 1.0;
    case CollectiveType::kBarrier:
    case CollectiveType::kUnknown:
      return 0;
  }
  return 0;
}

bool CountIsPerRank(CollectiveType t) {
  return t == CollectiveType::kAllGather || t == CollectiveType::kReduceScatter ||
         t == CollectiveType::kAllToAll;
}

uint64_t NcclTestsBytes(CollectiveType t, uint64_t count, uint64_t elem_bytes, int nranks) {
  if (!CountIsPerRank(t)) return count * elem_bytes;
  return nranks > 0 ? count * elem_bytes * static_cast<uint64_t>(nranks) : 0;
}

uint64_t NcclTestsCount(CollectiveType t, uint64_t bytes, uint64_t elem_bytes, int nranks) {
  uint64_t per = elem_bytes;
  if (CountIsPerRank(t)) per *= nranks > 0 ? static_cast<uint64_t>(nranks) : 0;
  return per > 0 ? bytes / per : 0;
}

}  // namespace commdx
