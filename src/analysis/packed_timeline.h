// A rank's GPU timeline as its digest keeps it (rank_measures.h) for as long as the run: every
// interval list packed as varint differences (base/varint.h; sorted, disjoint intervals: the
// gap from the previous interval's end and the length, a few bytes each instead of 16), the
// idle attribution's short lists as they are. A reader unpacks one rank's timeline whole, uses
// it and drops it: a job's timelines are never all unpacked at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "analysis/trace_timeline.h"

namespace commdx::analysis {

class PackedIntervals {
 public:
  PackedIntervals() = default;
  explicit PackedIntervals(const Intervals& x);
  Intervals Unpack() const;
  size_t size() const { return count_; }
  size_t bytes() const { return data_.size(); }

 private:
  std::vector<uint8_t> data_;
  size_t count_ = 0;
};

class PackedTimeline {
 public:
  PackedTimeline() = default;
  explicit PackedTimeline(const RankTimeline& tl);
  RankTimeline Unpack() const;
  size_t bytes() const;

 private:
  // compute, comm, other, busy, data_loading, host_sync, then the idle parts queued, capture,
  // data, alloc, sync, host_gap, launch.
  static constexpr size_t kLists = 13;
  PackedIntervals lists_[kLists];
  std::vector<std::pair<int32_t, int64_t>> sync_charges_;
  std::vector<std::pair<uint32_t, int64_t>> launch_ops_;
  std::vector<HostGapCharge> host_gaps_;
};

}  // namespace commdx::analysis
