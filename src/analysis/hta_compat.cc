#include "analysis/hta_compat.h"

#include <algorithm>
#include <iterator>
#include <set>

#include "base/sort.h"

namespace commdx::analysis {

namespace {

bool Starts(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool Has(std::string_view s, std::string_view p) { return s.find(p) != s.npos; }

// HTA: last start of an event named like ProfilerStep on the CPU side, which for HTA includes
// gpu_user_annotation events (they have no stream). INT64_MAX when fewer than two step names.
int64_t LastStepStart(const RankTrace& t) {
  std::set<uint32_t> names;
  int64_t last = INT64_MIN;
  auto look = [&](const HostOp& op) {
    if (!Has(t.names[op.name], "ProfilerStep")) return;
    names.insert(op.name);
    last = std::max(last, op.start_ns);
  };
  t.ForEachHostOp(look);
  for (const HostOp& op : t.gpu_annotations) look(op);
  return names.size() >= 2 ? last : INT64_MAX;
}

double Pct(int64_t part, int64_t whole) {
  if (whole <= 0) return 0;
  return 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

}  // namespace

HtaKernelType HtaClassify(std::string_view n) {
  // ^nccl.*Kernel
  if (Starts(n, "nccl") && Has(n.substr(4), "Kernel")) return HtaKernelType::kCommunication;
  if (Starts(n, "Memcpy") || Starts(n, "Memset") || Starts(n, "dma")) return HtaKernelType::kMemory;
  // not (^nccl.*Kernel | .*Memcpy | ^Memset | .*Sync)
  if (Has(n, "Memcpy") || Has(n, "Sync")) return HtaKernelType::kOther;
  return HtaKernelType::kComputation;
}

namespace {

// HTA works in the file's microseconds and rounds each event inward (start up, end down) before
// merging; durations under a microsecond can come out negative, and HTA keeps them.
struct UsInterval {
  int64_t ts = 0;
  int64_t end = 0;
};

int64_t CeilUs(int64_t ns) { return ns >= 0 ? (ns + 999) / 1000 : -((-ns) / 1000); }
int64_t FloorUs(int64_t ns) { return ns >= 0 ? ns / 1000 : -((-ns + 999) / 1000); }

// hta.utils.merge_kernel_intervals: sort by start; a new group starts when an interval starts
// after the running maximum of the ends before it; each group is (min start, max end).
std::vector<UsInterval> HtaMerge(std::vector<UsInterval> v) {
  auto by_ts = [](const UsInterval& a, const UsInterval& b) { return a.ts < b.ts; };
  if (!std::is_sorted(v.begin(), v.end(), by_ts)) std::stable_sort(v.begin(), v.end(), by_ts);
  std::vector<UsInterval> out;
  int64_t cummax = INT64_MIN;
  for (const UsInterval& x : v) {
    if (out.empty() || x.ts > cummax) {
      out.push_back(x);
    } else {
      out.back().ts = std::min(out.back().ts, x.ts);
      out.back().end = std::max(out.back().end, x.end);
    }
    cummax = std::max(cummax, x.end);
  }
  return out;
}

int64_t RunTime(const std::vector<UsInterval>& m) {
  int64_t s = 0;
  for (const UsInterval& x : m) s += x.end - x.ts;
  return s;
}

// hta CommunicationAnalysis: +1/-1 at communication starts/ends, +2/-2 at computation ones,
// sorted by time; time where the running sum is 3 is overlap.
int64_t HtaOverlap(const std::vector<UsInterval>& comm, const std::vector<UsInterval>& comp) {
  using Edge = std::pair<int64_t, int>;
  auto by_time = [](const Edge& a, const Edge& b) { return a.first < b.first; };
  auto edges = [](const std::vector<UsInterval>& v, int weight) {
    std::vector<Edge> e;
    e.reserve(2 * v.size());
    for (const UsInterval& x : v) e.push_back({x.ts, weight}), e.push_back({x.end, -weight});
    return e;
  };
  std::vector<Edge> a = edges(comm, 1), b = edges(comp, 2);
  // A stable sort of comm's edges followed by comp's is the stable sort of each, merged (ties
  // from comm first). Each list is in order but for groups rounded to a negative length, whose
  // end comes just before their start: an insertion sort fixes those in one step each.
  StableSortNearlySorted(a, by_time);
  StableSortNearlySorted(b, by_time);
  std::vector<Edge> ev;
  ev.reserve(a.size() + b.size());
  std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(ev), by_time);
  int64_t overlap = 0;
  int running = 0;
  for (size_t i = 0; i + 1 < ev.size(); ++i) {
    running += ev[i].second;
    if (running == 3) overlap += ev[i + 1].first - ev[i].first;
  }
  return overlap;
}

}  // namespace

HtaCompat ComputeHtaCompat(const RankTrace& t) {
  HtaCompat r;
  r.rank = t.rank;
  const int64_t cut = LastStepStart(t);
  const int64_t base = t.base_time_ns;
  std::vector<UsInterval> all, compute, comm;
  all.reserve(t.gpu_ops.size());  // no regrowth copies (pages never written stay unused)
  compute.reserve(t.gpu_ops.size());
  comm.reserve(t.gpu_ops.size());
  std::vector<int8_t> type_of(t.names.size(), -1);  // HtaClassify by name id, worked out once
  for (const GpuOp& op : t.gpu_ops) {
    if (op.stream < 0) continue;
    if (cut != INT64_MAX) {
      if (op.launch < 0 || t.runtime[op.launch].start_ns >= cut) continue;
    }
    UsInterval iv{CeilUs(op.start_ns - base), FloorUs(op.end_ns - base)};
    all.push_back(iv);
    int8_t& type = type_of[op.name];
    if (type < 0) type = static_cast<int8_t>(HtaClassify(t.names[op.name]));
    switch (static_cast<HtaKernelType>(type)) {
      case HtaKernelType::kComputation:
        compute.push_back(iv);
        break;
      case HtaKernelType::kCommunication:
        comm.push_back(iv);
        break;
      default:
        break;
    }
  }
  if (all.empty()) return r;
  std::vector<UsInterval> busy = HtaMerge(std::move(all));
  std::vector<UsInterval> comp = HtaMerge(std::move(compute));
  std::vector<UsInterval> com = HtaMerge(std::move(comm));
  const int64_t kernel_time = busy.back().end - busy.front().ts;
  const int64_t idle = kernel_time - RunTime(busy);
  const int64_t compute_us = RunTime(comp);
  r.kernel_time_ns = kernel_time * 1000;
  r.idle_pct = Pct(idle, kernel_time);
  r.compute_pct = Pct(compute_us, kernel_time);
  r.non_compute_pct = Pct(kernel_time - compute_us - idle, kernel_time);
  r.comm_comp_overlap_pct = Pct(HtaOverlap(com, comp), RunTime(com));
  return r;
}

}  // namespace commdx::analysis
