#include "analysis/packed_timeline.h"

#include <array>

#include "base/varint.h"

namespace commdx::analysis {

namespace {

// The differences are taken in unsigned arithmetic, so any int64 sequence comes back exactly.
int64_t Diff(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
int64_t Add(int64_t a, int64_t d) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(d));
}

std::array<const Intervals*, 13> ListsOf(const RankTimeline& tl) {
  return {&tl.compute,   &tl.comm,          &tl.other,        &tl.busy,      &tl.data_loading,
          &tl.host_sync, &tl.idle.queued,   &tl.idle.capture, &tl.idle.data, &tl.idle.alloc,
          &tl.idle.sync, &tl.idle.host_gap, &tl.idle.launch};
}

std::array<Intervals*, 13> ListsOf(RankTimeline& tl) {
  return {&tl.compute,   &tl.comm,          &tl.other,        &tl.busy,      &tl.data_loading,
          &tl.host_sync, &tl.idle.queued,   &tl.idle.capture, &tl.idle.data, &tl.idle.alloc,
          &tl.idle.sync, &tl.idle.host_gap, &tl.idle.launch};
}

}  // namespace

PackedIntervals::PackedIntervals(const Intervals& x) : count_(x.size()) {
  int64_t prev = 0;
  for (const Interval& i : x) {
    PutVarint(data_, ZigZag(Diff(i.start, prev)));
    PutVarint(data_, ZigZag(Diff(i.end, i.start)));
    prev = i.end;
  }
  data_.shrink_to_fit();
}

Intervals PackedIntervals::Unpack() const {
  Intervals out(count_);
  size_t at = 0;
  int64_t prev = 0;
  for (Interval& i : out) {
    i.start = Add(prev, UnZigZag(GetVarint(data_, at)));
    i.end = Add(i.start, UnZigZag(GetVarint(data_, at)));
    prev = i.end;
  }
  return out;
}

PackedTimeline::PackedTimeline(const RankTimeline& tl)
    : sync_charges_(tl.idle.sync_charges),
      launch_ops_(tl.idle.launch_ops),
      host_gaps_(tl.idle.host_gaps) {
  const auto lists = ListsOf(tl);
  for (size_t k = 0; k < kLists; ++k) lists_[k] = PackedIntervals(*lists[k]);
}

RankTimeline PackedTimeline::Unpack() const {
  RankTimeline tl;
  const auto lists = ListsOf(tl);
  for (size_t k = 0; k < kLists; ++k) *lists[k] = lists_[k].Unpack();
  tl.idle.sync_charges = sync_charges_;
  tl.idle.launch_ops = launch_ops_;
  tl.idle.host_gaps = host_gaps_;
  return tl;
}

size_t PackedTimeline::bytes() const {
  size_t n = sync_charges_.size() * sizeof(sync_charges_[0]) +
             launch_ops_.size() * sizeof(launch_ops_[0]) +
             host_gaps_.size() * sizeof(HostGapCharge);
  for (const auto& l : lists_) n += l.bytes();
  return n;
}

}  // namespace commdx::analysis
