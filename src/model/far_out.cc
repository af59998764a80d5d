#include "model/far_out.h"

#include <algorithm>
#include <string>

#include "base/text.h"

namespace commdx {

namespace {

// Percentiles of fewer events say nothing: of 3 short events 5 s apart the rule would keep one.
constexpr size_t kMinEvents = 16;
// Sampled times kept at most (x2: every event of up to this many is used, exactly).
constexpr size_t kMaxSample = 1u << 16;
constexpr int64_t kMinMarginNs = 1'000'000'000;
constexpr int64_t kSpanFactor = 10;

template <class T>
void Drop(std::vector<T>& v, const TimeWindow& w, const char* kind, FarOutDropped& d) {
  size_t out = 0;
  while (out < v.size() && w.Keeps(v[out].start_ns, v[out].end_ns)) ++out;  // usually all
  for (size_t i = out; i < v.size(); ++i) {
    if (w.Keeps(v[i].start_ns, v[i].end_ns)) {
      v[out++] = v[i];
      continue;
    }
    if (d.count++ == 0) d = {1, kind, v[i].name, v[i].start_ns, v[i].end_ns};
  }
  v.resize(out);
}

// Times as the file wrote them, in whole µs; the window's saturated ends read "the start/end of
// time" rather than a 19-digit number.
std::string Us(int64_t ns, int64_t base_ns) {
  if (ns == INT64_MIN || ns == INT64_MAX) return ns < 0 ? "-inf" : "+inf";
  return std::to_string(
             static_cast<int64_t>(static_cast<uint64_t>(ns) - static_cast<uint64_t>(base_ns)) /
             1000) +
         " µs";
}

}  // namespace

FarOutRule::FarOutRule(size_t total_events) {
  stride_ = std::max<size_t>(1, total_events / kMaxSample);
  starts_.reserve(std::min(total_events, 2 * kMaxSample));
  ends_.reserve(starts_.capacity());
}

TimeWindow FarOutRule::Window() {
  const size_t n = starts_.size();
  if (n < kMinEvents) return {};
  const size_t k = std::max<size_t>(1, n / 100);
  std::nth_element(starts_.begin(), starts_.begin() + k, starts_.end());
  std::nth_element(ends_.begin(), ends_.begin() + (n - 1 - k), ends_.end());
  int64_t lo = starts_[k], hi = ends_[n - 1 - k];
  if (hi < lo) std::swap(lo, hi);
  // Unsigned: the span of two int64 times always fits; the margin saturates.
  const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  const int64_t margin = span > static_cast<uint64_t>(INT64_MAX / kSpanFactor)
                             ? INT64_MAX
                             : std::max(kSpanFactor * static_cast<int64_t>(span), kMinMarginNs);
  TimeWindow w;
  w.lo_ns = lo < INT64_MIN + margin ? INT64_MIN : lo - margin;
  w.hi_ns = hi > INT64_MAX - margin ? INT64_MAX : hi + margin;
  return w;
}

TimeWindow FarOutWindow(const RankTrace& t) {
  FarOutRule rule(t.gpu_ops.size() + t.host_ops.size() + t.runtime.size() +
                  t.gpu_annotations.size());
  rule.AddAll(t.gpu_ops);
  rule.AddAll(t.host_ops);
  rule.AddAll(t.runtime);
  rule.AddAll(t.gpu_annotations);
  return rule.Window();
}

FarOutDropped DropFarOutEvents(RankTrace& t, const TimeWindow& w) {
  FarOutDropped d;
  if (w.lo_ns == INT64_MIN && w.hi_ns == INT64_MAX) return d;
  Drop(t.gpu_ops, w, "GPU op", d);
  Drop(t.host_ops, w, "CPU op", d);
  Drop(t.runtime, w, "runtime call", d);
  Drop(t.gpu_annotations, w, "GPU annotation", d);
  return d;
}

std::string FarOutMessage(const FarOutDropped& d, std::string_view name, const TimeWindow& w,
                          int64_t base_ns) {
  return "events far outside the trace's span (starting before " + Us(w.lo_ns, base_ns) +
         " or ending after " + Us(w.hi_ns, base_ns) +
         ": over 10x the span of the bulk of the events away from it; a broken clock or writer) "
         "were left out of steps and analyses; first: " +
         d.kind + " '" + std::string(name) + "' at ts " + Us(d.start_ns, base_ns) + ", lasting " +
         FormatDurationNs(static_cast<double>(static_cast<uint64_t>(d.end_ns) -
                                              static_cast<uint64_t>(d.start_ns)));
}

}  // namespace commdx
