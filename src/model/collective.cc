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

}  // namespace commdx
