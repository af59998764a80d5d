// inspector.comm_summary and inspector.slow_collective_bw from NCCL Inspector's aggregated
// Prometheus output (NCCL 2.30 on): per GPU and dump pass, each communicator's operations
// aggregated per (operation, size range, algorithm_protocol) with a mean time and a geometric-mean
// busbw. Buckets carry no rank and no sequence number, so one collective cannot be matched across
// GPUs; what the GPUs' buckets of one key say together:
//  - the spread of busbw and time across GPUs and passes;
//  - the highest busbw among them as the transfer estimate: a GPU that arrived early waits inside
//    its kernels, so its time holds the wait and its busbw is lower; the highest holds the least
//    waiting (still a lower bound of the link's rate).
// Slow: keys of 1 MiB or more whose highest busbw is under half the low end of what the job's
// link should give (expected_bandwidth.h); only where the topology is known.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "analysis/catalogue.h"
#include "analysis/expected_bandwidth.h"
#include "analysis/inspector_analyzers.h"
#include "analysis/inspector_log_join.h"
#include "base/str_format.h"

namespace commdx::analysis {

namespace {

constexpr uint64_t kMinBytes = 1 << 20;
constexpr double kSlowRatio = 0.5;
constexpr size_t kMaxKeysShown = 6;

struct Key {
  std::string op;
  bool p2p;
  uint64_t size_lo, size_hi;
  std::string size_label, algo_proto;
  auto Tie() const { return std::tie(op, p2p, size_lo, size_hi, algo_proto); }
  bool operator<(const Key& o) const { return Tie() < o.Tie(); }
};

struct KeyStats {
  std::vector<const InspectorBucket*> buckets;
  int64_t ops = 0;  // sum of the buckets' counts, where given
  double Highest() const {
    double m = 0;
    for (const InspectorBucket* b : buckets) m = std::max(m, b->busbw_gbps);
    return m;
  }
  double Lowest() const {
    double m = buckets.front()->busbw_gbps;
    for (const InspectorBucket* b : buckets) m = std::min(m, b->busbw_gbps);
    return m;
  }
  double MeanTimeUs() const {
    double sum = 0;
    for (const InspectorBucket* b : buckets) sum += b->exec_us;
    return sum / buckets.size();
  }
};

struct CommStats {
  int n_ranks = 0, nnodes = 0;
  std::string version;
  std::set<std::pair<std::string, std::string>> gpus;  // (node, gpu)
  std::map<Key, KeyStats> keys;
};

std::string KeyName(const Key& k) {
  std::string s = k.op + " " + (k.size_label.empty() ? "(size unknown)" : k.size_label);
  if (!k.algo_proto.empty() && k.algo_proto != "unknown_unknown") s += " " + k.algo_proto;
  return s;
}

}  // namespace

std::vector<Finding> FindInspectorBuckets(const Job& job, const Options&) {
  std::vector<Finding> out;
  if (job.inspector_buckets.empty()) return out;
  std::map<std::tuple<std::string, int, int>, CommStats> comms;
  for (const InspectorBucket& b : job.inspector_buckets) {
    CommStats& c = comms[{b.comm, b.n_ranks, b.nnodes}];
    c.n_ranks = b.n_ranks;
    c.nnodes = b.nnodes;
    if (c.version.empty()) c.version = b.version;
    c.gpus.insert({b.node, b.gpu});
    KeyStats& k = c.keys[{b.op, b.p2p, b.size_lo, b.size_hi, b.size_label, b.algo_proto}];
    k.buckets.push_back(&b);
    k.ops += b.count;
  }
  ExpectedBandwidth expected = ExpectedForJob(job);
  for (const auto& [id, c] : comms) {
    // The keys with the most buckets (GPUs x passes) first, then the larger sizes.
    std::vector<std::pair<const Key*, const KeyStats*>> order;
    for (const auto& [k, s] : c.keys) order.push_back({&k, &s});
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
      if (a.second->buckets.size() != b.second->buckets.size())
        return a.second->buckets.size() > b.second->buckets.size();
      return a.first->size_lo > b.first->size_lo;
    });
    const std::string name =
        std::get<0>(id) == "unknown" ? "(no name)" : std::get<0>(id);
    Finding f = NewFinding("inspector.comm_summary");
    f.severity = Severity::kInfo;
    f.title = StrFormat("Communicator %s: %d ranks on %d node(s), %zu size bucket%s from %zu GPU(s)",
                        name.c_str(), c.n_ranks, c.nnodes, c.keys.size(),
                        c.keys.size() == 1 ? "" : "s", c.gpus.size());
    f.detail = StrFormat(
        "From NCCL Inspector's Prometheus output (format %s): per GPU and dump pass, the "
        "operations of each (operation, size range, algorithm_protocol) aggregated, with no rank "
        "or sequence number, so late ranks are not told apart. Bus bandwidth per key (highest "
        "and lowest over the GPUs' buckets, mean time):",
        c.version.empty() ? "unknown" : c.version.c_str());
    size_t shown = 0;
    for (const auto& [k, s] : order) {
      if (shown++ == kMaxKeysShown) break;
      // One number where both ends print alike ("1.57", not "1.57-1.57").
      const std::string lo = StrFormat("%.2f", s->Lowest()), hi = StrFormat("%.2f", s->Highest());
      f.detail += " " + KeyName(*k) + StrFormat(" x%zu: ", s->buckets.size()) +
                  (lo == hi ? hi : lo + "-" + hi) + StrFormat(" GB/s, %.0f us;", s->MeanTimeUs());
    }
    if (c.keys.size() > kMaxKeysShown)
      f.detail += StrFormat(" and %zu more keys.", c.keys.size() - kMaxKeysShown);
    f.metrics.push_back({"ranks", static_cast<double>(c.n_ranks), Unit::kRanks});
    f.metrics.push_back({"nodes", static_cast<double>(c.nnodes), Unit::kCount});
    f.refs.push_back({order.front().second->buckets.front()->where, "first bucket"});
    // Only a bucket labelled with a comm_id (not 2.30's name) joins NCCL's log.
    f.detail += DescribeJoin(JoinInspectorComm(job.nccl, std::get<0>(id)), std::get<0>(id), f.refs);
    out.push_back(std::move(f));

    if (!HeldTo(expected, c.n_ranks, c.nnodes)) continue;
    for (const auto& [k, s] : order) {
      uint64_t traffic = k->size_lo;
      if (k->op == "AllGather" || k->op == "ReduceScatter") traffic *= c.n_ranks;
      if (k->p2p || traffic < kMinBytes || s->buckets.size() < 2) continue;
      const double got = s->Highest();
      if (got >= kSlowRatio * expected.busbw_low_gbps) continue;
      Finding x = NewFinding("inspector.slow_collective_bw");
      x.title = StrFormat(
          "%s on communicator %s reaches at most %.1f GB/s bus bandwidth, under half of the "
          "%.0f-%.0f GB/s %s should give",
          KeyName(*k).c_str(), name.c_str(), got, expected.busbw_low_gbps,
          expected.busbw_high_gbps, expected.link.c_str());
      x.detail = StrFormat(
          "The highest of %zu buckets (GPUs x dump passes); a bucket's busbw holds the waits "
          "of the ranks that came early, so the highest is the closest to the transfer alone. "
          "Expected from %s. Not priced per step: the Inspector output carries no step "
          "boundaries.",
          s->buckets.size(), expected.basis.c_str());
      CompleteSlowBandwidth(x, got, k->size_lo, expected);
      x.refs.push_back({s->buckets.front()->where, "first bucket of this key"});
      out.push_back(std::move(x));
      break;  // the most frequent slow key speaks for the communicator
    }
  }
  return out;
}

}  // namespace commdx::analysis
