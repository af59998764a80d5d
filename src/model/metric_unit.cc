#include "model/metric_unit.h"

namespace commdx {

const char* UnitName(Unit u) {
  switch (u) {
    case Unit::kNone:
      return "";
    case Unit::kCount:
      return "count";
    case Unit::kNs:
      return "ns";
    case Unit::kBytes:
      return "bytes";
    case Unit::kGBps:
      return "GB/s";
    case Unit::kRatio:
      return "ratio";
    case Unit::kPercent:
      return "%";
    case Unit::kGeneration:
      return "gen";
    case Unit::kCode:
      return "code";
    case Unit::kBitmask:
      return "bitmask";
    case Unit::kNode:
      return "node";
    case Unit::kLinks:
      return "links";
    case Unit::kLanes:
      return "lanes";
    case Unit::kPairs:
      return "pairs";
    case Unit::kBridges:
      return "bridges";
    case Unit::kGpus:
      return "gpus";
    case Unit::kCpus:
      return "cpus";
    case Unit::kCores:
      return "cores";
    case Unit::kThreads:
      return "threads";
    case Unit::kRanks:
      return "ranks";
    case Unit::kProcesses:
      return "processes";
  }
  return "";
}

}  // namespace commdx
