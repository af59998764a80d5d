// The unit of a finding's metric: a closed set, so the same quantity is always spelled the same way
// and every renderer formats it alike. UnitName is the spelling in the JSON report
// (docs/report-json.md, "Metric units"); report/render_util.cc formats values for people.
#pragma once

#include <cstdint>

namespace commdx {

enum class Unit : uint8_t {
  kNone,        // "": a plain number (wrong elements)
  kCount,       // "count": how many of something the metric's name says
  kNs,          // "ns": a duration in nanoseconds
  kBytes,       // "bytes"
  kGBps,        // "GB/s": decimal gigabytes per second
  kRatio,       // "ratio": a quotient, a share of a whole as 0..1
  kPercent,     // "%": 0..100
  kGeneration,  // "gen": PCIe generation
  kCode,        // "code": a status code as the tool printed it
  kBitmask,     // "bitmask"
  kNode,        // "node": a NUMA node id
  // Counts of a named thing, kept apart from kCount so the report says what was counted.
  kLinks,
  kLanes,
  kPairs,
  kBridges,
  kGpus,
  kCpus,
  kCores,
  kThreads,
  kRanks,
  kProcesses,
};

const char* UnitName(Unit u);  // "count", "ns", "GB/s", "%", ...

}  // namespace commdx
