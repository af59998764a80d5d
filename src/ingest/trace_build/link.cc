// Finishing a rank, part 1: absolute times, sorted events, launches linked to their GPU ops,
// streams classified.
#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <set>
#include <utility>
#include <vector>

#include "base/bucket_sort.h"
#include "base/sort.h"
#include "ingest/trace_build/rank_builder.h"

namespace commdx::ingest::trace_build {

namespace {

// Puts v[order[k]] at position k. Kineto's events are a few long runs already in order, so
// most events stay or move a short way: then following the permutation's cycles in place is
// cache-local and needs no second copy of the events. When many events move far (threads
// interleaved in the file), each step of a cycle would wait for a cache miss; a gather into a
// new vector lets those misses overlap instead.
template <class T>
void Permute(std::vector<T>& v, std::vector<uint32_t>& order) {
  const size_t n = v.size();
  constexpr size_t kNear = (512u << 10) / sizeof(T);  // events within half a MiB stay in cache
  size_t far = 0;
  for (size_t k = 0; k < n; ++k) far += (order[k] > k ? order[k] - k : k - order[k]) > kNear;
  if (far > n / 16) {
    std::vector<T> gathered;
    gathered.reserve(n);
    for (uint32_t i : order) gathered.push_back(v[i]);
    v.swap(gathered);
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    if (order[i] == i) continue;
    T held = v[i];
    size_t j = i;
    while (true) {
      size_t src = order[j];
      order[j] = static_cast<uint32_t>(j);
      if (src == i) {
        v[j] = held;
        break;
      }
      v[j] = v[src];
      j = src;
    }
  }
}

// Sorts `v` by start, longer first at equal starts (parents before children), then by name and
// file order, so the order never depends on the sort algorithm. Kineto writes an op when it
// ends (a parent after its children) and groups threads, so the input is not sorted.
// The earliest start and the latest end of a kind of event.
struct Span {
  int64_t first = INT64_MAX, last = INT64_MIN;
};

template <class T, class... Side>
Span SortByStart(std::vector<T>& v, std::vector<Side>&... side) {
  auto less = [&v](uint32_t a, uint32_t b) {
    const T& x = v[a];
    const T& y = v[b];
    if (x.start_ns != y.start_ns) return x.start_ns < y.start_ns;
    if (x.end_ns != y.end_ns) return x.end_ns > y.end_ns;
    if (x.name != y.name) return x.name < y.name;
    return a < b;
  };
  if (v.empty()) return {};
  // One pass: in order already? the range of the starts, for the buckets; the latest end.
  bool sorted = true;
  int64_t lo = v[0].start_ns, hi = lo, last = v[0].end_ns;
  for (size_t i = 1; i < v.size(); ++i) {
    sorted = sorted && !less(static_cast<uint32_t>(i), static_cast<uint32_t>(i - 1));
    lo = std::min(lo, v[i].start_ns);
    hi = std::max(hi, v[i].start_ns);
    last = std::max(last, v[i].end_ns);
  }
  if (!sorted) {
    std::vector<uint32_t> order = SortedOrder(
        v.size(), [&v](size_t i) { return v[i].start_ns; }, less, lo, hi);
    // Permute() uses up the order it follows: each array beside `v` gets a copy.
    (
        [&order](auto& s) {
          std::vector<uint32_t> copy = order;
          Permute(s, copy);
        }(side),
        ...);
    Permute(v, order);
  }
  return {lo, last};
}

// Correlation id -> the first runtime call added with it: open addressing with linear probing,
// at most half full, ids and calls in separate arrays (12 bytes a slot).
class FirstCallOf {
 public:
  explicit FirstCallOf(size_t calls) {
    int bits = 4;
    while ((size_t{1} << bits) < 2 * calls) ++bits;
    shift_ = 64 - bits;
    ids_.assign(size_t{1} << bits, 0);
    calls_.assign(size_t{1} << bits, -1);
  }
  void Add(int64_t id, int32_t call) {
    const size_t i = Slot(id);
    if (calls_[i] < 0) {
      ids_[i] = id;
      calls_[i] = call;
    }
  }
  // The call, or -1.
  int32_t Find(int64_t id) const { return calls_[Slot(id)]; }

 private:
  // The slot holding `id`, or the empty one where it would go.
  size_t Slot(int64_t id) const {
    const size_t mask = calls_.size() - 1;
    // Fibonacci hashing: the top bits of the product spread ids that differ in low bits.
    size_t i = static_cast<size_t>((static_cast<uint64_t>(id) * 0x9e3779b97f4a7c15ull) >> shift_);
    while (calls_[i] >= 0 && ids_[i] != id) i = (i + 1) & mask;
    return i;
  }
  int shift_ = 60;
  std::vector<int64_t> ids_;
  std::vector<int32_t> calls_;
};

}  // namespace

// Newer traces write ts as fractional µs relative to baseTimeNanoseconds; older ones integer µs
// since the epoch (and may still carry a base). Times that are small are relative.
void RankBuilder::ApplyBaseTime() {
  if (base_time_ns_ <= 0) return;
  // ~3.2 years: epoch-based times are ~1.7e18 ns; relative ones (even from a clock that started
  // weeks before the base, as CUPTI's can) are far smaller.
  constexpr int64_t kRelativeBelowNs = 100'000'000'000'000'000;  // 1e17
  // One pass over the events (they are far larger than the caches): shifted while the largest
  // |start| is looked for, and shifted back in the rare case that it says the times were
  // absolute. The sums are unsigned, so they wrap instead of overflowing and the way back is
  // exact.
  const int64_t b = base_time_ns_;
  int64_t max_abs = 0;
  auto shift = [&max_abs](auto& events, uint64_t by, bool look) {
    for (auto& o : events) {
      if (look) max_abs = std::max(max_abs, std::abs(o.start_ns));
      o.start_ns = static_cast<int64_t>(static_cast<uint64_t>(o.start_ns) + by);
      o.end_ns = static_cast<int64_t>(static_cast<uint64_t>(o.end_ns) + by);
    }
  };
  const uint64_t forward = static_cast<uint64_t>(b);
  shift(trace_.gpu_ops, forward, true);
  shift(trace_.host_ops, forward, true);
  shift(trace_.runtime, forward, true);
  if (max_abs >= kRelativeBelowNs) {
    const uint64_t back = 0 - forward;
    shift(trace_.gpu_ops, back, false);
    shift(trace_.host_ops, back, false);
    shift(trace_.runtime, back, false);
    return;
  }
  trace_.base_time_ns = b;
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
    // (ts, id) stably sorted by ts: the first flow in the file wins where several share a ts.
    // Sorted arrays, not maps: a trace that never writes correlations in args (CUPTI range
    // profiling) is ~45% flow events, and a tree node per flow cost more than reading them.
    using TsId = std::pair<int64_t, int64_t>;
    std::vector<TsId> start_at, end_at;
    for (const auto& f : flows_) (f.start ? start_at : end_at).emplace_back(f.ts_ns, f.id);
    for (auto* v : {&start_at, &end_at})
      StableSortNearlySorted(*v, [](const TsId& a, const TsId& b) { return a.first < b.first; });
    auto id_at = [](const std::vector<TsId>& v, int64_t ts, int64_t& id) {  // the first at ts
      auto it = std::lower_bound(v.begin(), v.end(), ts,
                                 [](const TsId& a, int64_t x) { return a.first < x; });
      if (it != v.end() && it->first == ts) id = it->second;
    };
    for (size_t i = 0; i < t.gpu_ops.size(); ++i)
      if (gpu_ids_[i].correlation < 0)
        id_at(end_at, t.gpu_ops[i].start_ns, gpu_ids_[i].correlation);
    for (size_t i = 0; i < t.runtime.size(); ++i)
      if (runtime_correlation_[i] < 0)
        id_at(start_at, t.runtime[i].start_ns, runtime_correlation_[i]);
  }
  // GpuOp::collective holds the index into colls_ until the collectives are built.
  const Span spans[] = {SortByStart(t.gpu_ops, gpu_ids_), SortByStart(t.host_ops),
                        SortByStart(t.runtime, runtime_correlation_)};
  for (size_t i = 0; i < t.gpu_ops.size(); ++i)
    if (t.gpu_ops[i].collective >= 0)
      colls_[t.gpu_ops[i].collective].gpu_op = static_cast<int32_t>(i);
  SortByStart(t.gpu_annotations);
  std::sort(ext_args_.begin(), ext_args_.end(),
            [](const PendingColl& a, const PendingColl& b) { return a.start_ns < b.start_ns; });

  LinkLaunches();

  t.first_ns = INT64_MAX;
  t.last_ns = INT64_MIN;
  for (const Span& s : spans) {
    t.first_ns = std::min(t.first_ns, s.first);
    t.last_ns = std::max(t.last_ns, s.last);
  }
  if (t.first_ns > t.last_ns) t.first_ns = t.last_ns = 0;
}

// A GPU op's launch is the first runtime call (in start order) with its correlation id.
void RankBuilder::LinkLaunches() {
  auto& t = trace_;
  auto link = [&t](size_t i, int32_t launch) {
    GpuOp& op = t.gpu_ops[i];
    op.launch = launch;
    RuntimeCall& rc = t.runtime[launch];
    if (rc.gpu_op < 0) rc.gpu_op = static_cast<int32_t>(i);
  };
  // Correlation ids are handed out per API call, and a trace keeps some of the calls: from 1
  // and dense in a short trace, ~1 in 5 of a range that starts anywhere in a window of a long
  // job, one range per window where windows are joined. A hash table of the first call with
  // each id (the calls are in start order) serves them all in one pass over each list.
  FirstCallOf first_call(t.runtime.size());
  for (size_t i = 0; i < t.runtime.size(); ++i)
    if (runtime_correlation_[i] >= 0)
      first_call.Add(runtime_correlation_[i], static_cast<int32_t>(i));
  for (size_t i = 0; i < t.gpu_ops.size(); ++i) {
    const int64_t c = gpu_ids_[i].correlation;
    if (c < 0) continue;
    const int32_t launch = first_call.Find(c);
    if (launch >= 0) link(i, launch);
  }
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
  std::set<int> devices;
  for (auto& [key, s] : streams) {
    s.is_comm = s.comm_ns > 0 && 2 * s.comm_ns >= s.busy_ns;
    t.streams.push_back(s);
    if (s.device >= 0 && s.busy_ns > 0) devices.insert(s.device);
  }
  if (devices.size() > 1) {
    std::string list;
    for (int d : devices) list += (list.empty() ? "" : ", ") + std::to_string(d);
    quality_.Add("kineto.several_gpus", DiagSeverity::kNote,
                 "one process ran GPU work on devices " + list +
                     ": the step breakdown counts its GPU busy while any of them is "
                     "(trace.serial_gpus compares them)",
                 SourceLoc{t.file});
  }
}

}  // namespace commdx::ingest::trace_build
