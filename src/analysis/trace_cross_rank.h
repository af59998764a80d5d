// Across ranks: every collective instance matched over the ranks of its process group, the
// ranks' clocks aligned on collective end times, and each instance split into wait (arrival skew)
// and transfer (docs/trace-metrics.md).
//
// Matching key: process group + `Seq` where the trace has it; otherwise process group + the
// ProfilerStep the call was issued in + its order of issue within that step (point-to-point calls
// per direction src->dst). Clock offset of a rank: the median, over instances it shares with the
// reference rank, of (reference end - its end). Wait of a rank = last start - own start;
// transfer = own end - last start.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/trace_timeline.h"
#include "model/trace.h"

namespace commdx::analysis {

struct MatchedPart {
  int trace = -1;        // index into TraceSet::ranks
  int32_t coll = -1;     // index into that rank's collectives
  int64_t start_ns = 0;  // aligned to the reference clock
  int64_t end_ns = 0;
  int64_t wait_ns = 0;
  int64_t transfer_ns = 0;
};

struct MatchedCollective {
  std::string pg;
  int64_t step = -1;  // step number it was issued in (-1: none)
  CollectiveType type = CollectiveType::kUnknown;
  uint64_t bytes = 0;
  int group_size = 0;
  std::vector<MatchedPart> parts;
  int late = -1;  // trace index of the last rank to arrive
  int64_t last_start_ns = 0;
  int64_t max_wait_ns = 0;  // longest wait of any rank
  int64_t transfer_ns = 0;  // median of the parts' transfer
};

struct CrossRank {
  std::vector<int64_t> offset_ns;  // per trace: add to its clock to get the reference clock
  std::vector<MatchedCollective> matches;
  std::vector<Intervals> wait;  // per trace, own clock: the waiting part of its comm kernels
  // Per trace, own clock: comm kernels whose collective was matched with no other rank (the
  // partner's trace is missing, or it was issued before tracing began): their wait is unknown.
  std::vector<Intervals> unmeasured;
  int reference = -1;
  uint64_t mismatched = 0;  // keys whose ranks disagree on the collective or its size
  uint64_t unmatched = 0;   // instances seen on one rank only
  uint64_t partial = 0;     // instances seen on some but not all members of their group
};

CrossRank MatchAcrossRanks(const TraceSet& set);

}  // namespace commdx::analysis
