// Events far outside a trace's span: a kernel at ts=0 among epoch-µs times (a 5-billion-ms step),
// a kernel lasting 104 days. They come from broken clocks or writers, not from the job, and one of
// them stretches every step and window it falls in. The rule, for any importer of timed events:
//
// The bulk is the span from the 1st percentile of the events' starts to the 99th percentile of
// their ends (dropping at least one extreme on each side). An event starting before the bulk, or
// ending after it, by more than max(10x the bulk's span, 1 s) is far out. 10x, not 1x: a real
// straggler wait can make one NCCL kernel several times longer than the rest of the trace, and
// dropping it would hide the very thing to find.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/trace.h"

namespace commdx {

// Times outside [lo_ns, hi_ns] are far out. Everything is kept when too few events to judge.
struct TimeWindow {
  int64_t lo_ns = INT64_MIN;
  int64_t hi_ns = INT64_MAX;
  bool Keeps(int64_t start_ns, int64_t end_ns) const {
    return start_ns >= lo_ns && end_ns <= hi_ns;
  }
};

// Collects the events' times (a deterministic stride sample of large inputs: percentiles of a
// sample of tens of thousands are as good as exact ones) and computes the window.
class FarOutRule {
 public:
  explicit FarOutRule(size_t total_events);
  template <class T>
  void AddAll(const std::vector<T>& events) {
    for (const T& e : events) Add(e.start_ns, e.end_ns);
  }
  // Every stride_-th event from the first (no division); inline: it runs once per event.
  void Add(int64_t start_ns, int64_t end_ns) {
    if (--until_next_ != 0) return;
    until_next_ = stride_;
    starts_.push_back(start_ns);
    ends_.push_back(end_ns);
  }
  TimeWindow Window();

 private:
  size_t stride_ = 1;
  size_t until_next_ = 1;  // events until the next one sampled
  std::vector<int64_t> starts_, ends_;
};

// The first far-out event dropped, for the input-quality note.
struct FarOutDropped {
  uint64_t count = 0;
  const char* kind = "";  // "GPU op", "CPU op", "runtime call", "GPU annotation"
  uint32_t name = 0;      // the caller's name id (RankTrace::names or an importer's interner)
  int64_t start_ns = 0, end_ns = 0;
};

// Removes the events `w` does not keep from the rank's GPU ops, host ops, runtime calls and GPU
// annotations, keeping the others' order. Indices between them (launch, gpu_op, collective) are
// not renumbered: call before they are linked.
FarOutDropped DropFarOutEvents(RankTrace& t, const TimeWindow& w);

// The window for `t` by the rule above, over all its timed events.
TimeWindow FarOutWindow(const RankTrace& t);

// "3 events lie far outside the trace's span (...)": the note's message, `name` resolved by the
// caller; times shown as the file wrote them, `base_ns` (a base time added at import) taken off.
std::string FarOutMessage(const FarOutDropped& d, std::string_view name, const TimeWindow& w,
                          int64_t base_ns);

}  // namespace commdx
