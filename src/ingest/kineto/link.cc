// Finishing a rank, part 1: absolute times, sorted events, launches linked to their GPU ops,
// streams classified.
#include <algorithm>
#include <map>
#include <numeric>

#include "ingest/kineto/rank_builder.h"

namespace commdx::ingest::kineto {

namespace {

// Sorts `v` by start, longer first at equal starts (parents before children), then by name and
// file order, so the order never depends on the sort algorithm. Kineto writes an op when it
// ends (a parent after its children) and groups threads, so the input is far from sorted in
// places: small keys are sorted, then the events moved once.
template <class T>
void SortByStart(std::vector<T>& v) {
  struct Key {
    int64_t start;
    int64_t neg_end;
    uint32_t name;
    uint32_t index;
  };
  auto less = [](const Key& a, const Key& b) {
    if (a.start != b.start) return a.start < b.start;
    if (a.neg_end != b.neg_end) return a.neg_end < b.neg_end;
    if (a.name != b.name) return a.name < b.name;
    return a.index < b.index;
  };
  std::vector<Key> keys(v.size());
  bool sorted = true;
  for (size_t i = 0; i < v.size(); ++i) {
    keys[i] = {v[i].start_ns, -v[i].end_ns, v[i].name, static_cast<uint32_t>(i)};
    if (i && less(keys[i], keys[i - 1])) sorted = false;
  }
  if (sorted) return;
  // Merge sort: sawtooth inputs (runs per thread, parents after children) drive introsort into
  // its heapsort fallback.
  std::stable_sort(keys.begin(), keys.end(), less);
  // Apply the permutation in place (position i takes v[keys[i].index]), one cycle at a time,
  // so that no second copy of the events is ever held.
  std::vector<bool> done(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    if (done[i] || keys[i].index == i) continue;
    T first = v[i];
    size_t at = i;
    while (keys[at].index != i) {
      v[at] = v[keys[at].index];
      done[at] = true;
      at = keys[at].index;
    }
    v[at] = first;
    done[at] = true;
  }
}

}  // namespace

// Newer traces write ts as fractional µs relative to baseTimeNanoseconds; older ones integer µs
// since the epoch (and may still carry a base). Times that are small are relative.
void RankBuilder::ApplyBaseTime() {
  if (base_time_ns_ <= 0) return;
  // ~3.2 years: epoch-based times are ~1.7e18 ns; relative ones (even from a clock that started
  // weeks before the base, as CUPTI's can) are far smaller.
  constexpr int64_t kRelativeBelowNs = 100'000'000'000'000'000;  // 1e17
  int64_t max_abs = 0;
  for (const auto& o : trace_.gpu_ops) max_abs = std::max(max_abs, std::abs(o.start_ns));
  for (const auto& o : trace_.host_ops) max_abs = std::max(max_abs, std::abs(o.start_ns));
  for (const auto& o : trace_.runtime) max_abs = std::max(max_abs, std::abs(o.start_ns));
  if (max_abs >= kRelativeBelowNs) return;
  const int64_t b = base_time_ns_;
  trace_.base_time_ns = b;
  for (auto& o : trace_.gpu_ops) o.start_ns += b, o.end_ns += b;
  for (auto& o : trace_.host_ops) o.start_ns += b, o.end_ns += b;
  for (auto& o : trace_.runtime) o.start_ns += b, o.end_ns += b;
  for (auto& o : trace_.gpu_annotations) o.start_ns += b, o.end_ns += b;
  for (auto& c : colls_) c.start_ns += b, c.end_ns += b;
  for (auto& c : ext_args_) c.start_ns += b, c.end_ns += b;
  for (auto& f : flows_) f.ts_ns += b;
}

void RankBuilder::SortAndLink() {
  auto& t = trace_;
  // Older traces may carry the correlation only on the ac2g flow pair ('s' at the launch, 'f' at
  // the GPU op, same ts as the event).
  if (!flows_.empty()) {
    std::map<int64_t, int64_t> start_at, end_at;  // ts -> id
    for (const auto& f : flows_) (f.start ? start_at : end_at).emplace(f.ts_ns, f.id);
    for (auto& op : t.gpu_ops)
      if (op.correlation < 0)
        if (auto it = end_at.find(op.start_ns); it != end_at.end()) op.correlation = it->second;
    for (auto& rc : t.runtime)
      if (rc.correlation < 0)
        if (auto it = start_at.find(rc.start_ns); it != start_at.end()) rc.correlation = it->second;
  }
  // GpuOp::collective holds the index into colls_ until the collectives are built.
  SortByStart(t.gpu_ops);
  for (size_t i = 0; i < t.gpu_ops.size(); ++i)
    if (t.gpu_ops[i].collective >= 0) colls_[t.gpu_ops[i].collective].gpu_op = static_cast<int32_t>(i);
  SortByStart(t.host_ops);
  SortByStart(t.runtime);
  SortByStart(t.gpu_annotations);
  std::sort(ext_args_.begin(), ext_args_.end(),
            [](const PendingColl& a, const PendingColl& b) { return a.start_ns < b.start_ns; });

  std::vector<std::pair<int64_t, int32_t>> by_corr;
  by_corr.reserve(t.runtime.size());
  for (size_t i = 0; i < t.runtime.size(); ++i)
    if (t.runtime[i].correlation >= 0)
      by_corr.emplace_back(t.runtime[i].correlation, static_cast<int32_t>(i));
  std::sort(by_corr.begin(), by_corr.end());
  for (size_t i = 0; i < t.gpu_ops.size(); ++i) {
    GpuOp& op = t.gpu_ops[i];
    if (op.correlation < 0) continue;
    auto it = std::lower_bound(by_corr.begin(), by_corr.end(),
                               std::make_pair(op.correlation, int32_t{-1}));
    if (it == by_corr.end() || it->first != op.correlation) continue;
    op.launch = it->second;
    RuntimeCall& rc = t.runtime[it->second];
    if (rc.gpu_op < 0) rc.gpu_op = static_cast<int32_t>(i);
  }

  t.first_ns = INT64_MAX;
  t.last_ns = INT64_MIN;
  auto span = [&t](int64_t s, int64_t e) {
    t.first_ns = std::min(t.first_ns, s);
    t.last_ns = std::max(t.last_ns, e);
  };
  for (const auto& o : t.gpu_ops) span(o.start_ns, o.end_ns);
  for (const auto& o : t.host_ops) span(o.start_ns, o.end_ns);
  for (const auto& o : t.runtime) span(o.start_ns, o.end_ns);
  if (t.first_ns > t.last_ns) t.first_ns = t.last_ns = 0;
}

void RankBuilder::BuildStreams() {
  auto& t = trace_;
  std::map<std::pair<int, int>, StreamInfo> streams;
  for (const auto& op : t.gpu_ops) {
    StreamInfo& s = streams[{op.device, op.stream}];
    s.device = op.device;
    s.stream = op.stream;
    ++s.ops;
    if (op.kind == GpuOpKind::kSync) continue;
    s.busy_ns += op.end_ns - op.start_ns;
    if (op.kind == GpuOpKind::kCommKernel) s.comm_ns += op.end_ns - op.start_ns;
  }
  for (auto& [key, s] : streams) {
    s.is_comm = s.comm_ns > 0 && 2 * s.comm_ns >= s.busy_ns;
    t.streams.push_back(s);
  }
}

}  // namespace commdx::ingest::kineto
