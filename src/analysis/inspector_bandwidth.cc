// inspector.comm_summary and inspector.slow_collective_bw from NCCL Inspector records.
// Per communicator and (collective, message size): the mean of the ranks' busbw per collective
// (what the plugin's perf_summary_exporter.py averages: AVG(coll_busbw_gbs) per id, coll_sn and
// size), and the transfer-only busbw: the late rank's record, whose kernel time holds no wait.
// Slow: sizes of 1 MiB or more whose median transfer busbw is under half the low end of what the
// job's link should give (expected_bandwidth.h); only where the topology is known.
#include <algorithm>
#include <map>
#include <tuple>

#include "analysis/catalogue.h"
#include "analysis/expected_bandwidth.h"
#include "analysis/inspector_analyzers.h"
#include "analysis/inspector_log_join.h"
#include "analysis/inspector_match.h"
#include "base/str_format.h"

namespace commdx::analysis {

namespace {

constexpr uint64_t kMinBytes = 1 << 20;
constexpr double kSlowRatio = 0.5;
constexpr size_t kMaxSizesShown = 6;

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

struct SizeStats {
  std::vector<double> mean_busbw;      // per collective, mean over its ranks
  std::vector<double> transfer_busbw;  // per collective, the late rank's
  const InspectorRecord* example = nullptr;
};

std::string Bytes(uint64_t b) {
  // Two decimals: DDP's buckets differ by a few KiB (32.00, 32.04, 32.05 MiB).
  if (b >= (1ull << 30)) return StrFormat("%.2f GiB", b / double(1ull << 30));
  if (b >= (1ull << 20)) return StrFormat("%.2f MiB", b / double(1ull << 20));
  if (b >= (1ull << 10)) return StrFormat("%.2f KiB", b / double(1ull << 10));
  return StrFormat("%llu B", static_cast<unsigned long long>(b));
}

}  // namespace

bool HeldTo(const ExpectedBandwidth& expected, int n_ranks, int nnodes) {
  if (!expected.known || expected.busbw_low_gbps <= 0 || n_ranks <= 1) return false;
  // The job's expectation is for one node's GPU links or for the network between nodes: a
  // communicator of the other kind is not held to it (a four-node one against NVLink).
  const bool network =
      expected.nccl_path == NcclPath::kNetIB || expected.nccl_path == NcclPath::kNetSocket;
  return (nnodes > 1) == network;
}

void CompleteSlowBandwidth(Finding& f, double busbw_gbps, uint64_t bytes,
                           const ExpectedBandwidth& expected) {
  f.fix =
      "Check the transport NCCL chose (NCCL_DEBUG=INFO: P2P/NVLink, NET/IB or a socket "
      "fallback), the channel count, and the link's health (commdx topo).";
  f.metrics.push_back({"busbw", busbw_gbps, Unit::kGBps});
  f.metrics.push_back({"expected_busbw_low", expected.busbw_low_gbps, Unit::kGBps});
  f.metrics.push_back({"bytes", static_cast<double>(bytes), Unit::kBytes});
  f.confidence = expected.confidence;
}

std::vector<Finding> FindInspectorBandwidth(const Job& job, const Options&) {
  std::vector<Finding> out;
  if (job.inspector.empty()) return out;
  ExpectedBandwidth expected = ExpectedForJob(job);
  for (const InspectorComm& c : MatchInspector(job.inspector)) {
    std::map<std::pair<std::string, uint64_t>, SizeStats> sizes;
    std::map<std::string, size_t> per_coll;
    for (const MatchedColl& m : c.colls) {
      ++per_coll[m.first->coll];
      SizeStats& s = sizes[{m.first->coll, m.first->msg_bytes}];
      if (!s.example) s.example = m.first;
      double sum = 0;
      for (const InspectorRecord* r : m.ranks) sum += r->busbw_gbps;
      s.mean_busbw.push_back(sum / m.ranks.size());
      if (m.late_rank >= 0)
        for (const InspectorRecord* r : m.ranks)
          if (r->rank == m.late_rank) s.transfer_busbw.push_back(r->busbw_gbps);
    }
    // The most frequent sizes first, then larger first.
    std::vector<std::pair<std::pair<std::string, uint64_t>, const SizeStats*>> order;
    for (const auto& [k, s] : sizes) order.push_back({k, &s});
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
      if (a.second->mean_busbw.size() != b.second->mean_busbw.size())
        return a.second->mean_busbw.size() > b.second->mean_busbw.size();
      return a.first.second > b.first.second;
    });
    Finding f = NewFinding("inspector.comm_summary");
    f.severity = Severity::kInfo;
    std::string colls;
    for (const auto& [name, n] : per_coll)
      colls += (colls.empty() ? "" : ", ") + StrFormat("%zu %s", n, name.c_str());
    f.title = StrFormat("Communicator %s: %d ranks on %d node(s), %s; %s recorded",
                        InspectorCommLabel(c).c_str(), c.n_ranks, c.nnodes, InspectorCommType(c),
                        colls.c_str());
    f.detail = StrFormat(
        "Records of %d of %d ranks. Bus bandwidth per size (mean of the ranks per "
        "collective, as the plugin's exporter; transfer only: the late rank's):",
        c.ranks_seen, c.n_ranks);
    size_t shown = 0;
    for (const auto& [k, s] : order) {
      if (shown++ == kMaxSizesShown) break;
      f.detail += StrFormat(" %s %s x%zu: %.2f GB/s", k.first.c_str(), Bytes(k.second).c_str(),
                            s->mean_busbw.size(), Median(s->mean_busbw));
      if (!s->transfer_busbw.empty())
        f.detail += StrFormat(" (transfer %.2f)", Median(s->transfer_busbw));
      f.detail += ";";
    }
    if (c.n_ranks <= 1)
      f.detail +=
          " A one-rank communicator moves no data between GPUs: the plugin writes busbw "
          "0 for its AllReduce.";
    // What NCCL's own log of the job knows of it: its refs follow the first record.
    const InspectorLogJoin join = JoinInspectorComm(job.nccl, c.id);
    std::vector<EvidenceRef> log_refs;
    f.detail += DescribeJoin(join, c.id, log_refs);
    f.metrics.push_back({"ranks", static_cast<double>(c.n_ranks), Unit::kRanks});
    f.metrics.push_back({"nodes", static_cast<double>(c.nnodes), Unit::kCount});
    f.metrics.push_back({"collectives", static_cast<double>(c.colls.size()), Unit::kCount});
    if (!c.colls.empty()) f.refs.push_back({c.colls.front().first->where, "first record"});
    f.refs.insert(f.refs.end(), log_refs.begin(), log_refs.end());
    out.push_back(std::move(f));

    if (!HeldTo(expected, c.n_ranks, c.nnodes)) continue;
    for (const auto& [k, s] : order) {
      uint64_t traffic = k.second;
      if (k.first == "AllGather" || k.first == "ReduceScatter") traffic *= c.n_ranks;
      if (traffic < kMinBytes || s->transfer_busbw.size() < 3) continue;
      double got = Median(s->transfer_busbw);
      if (got >= kSlowRatio * expected.busbw_low_gbps) continue;
      Finding x = NewFinding("inspector.slow_collective_bw");
      x.title = StrFormat(
          "%s of %s on communicator %s reach %.1f GB/s bus bandwidth, under half "
          "of the %.0f-%.0f GB/s %s should give",
          k.first.c_str(), Bytes(k.second).c_str(), InspectorCommLabel(c).c_str(), got,
          expected.busbw_low_gbps, expected.busbw_high_gbps, expected.link.c_str());
      x.detail = StrFormat(
          "Median over %zu collectives of the late rank's busbw (its kernel time holds no wait "
          "for others). Expected from %s. Not priced per step: the Inspector records carry no "
          "step boundaries.",
          s->transfer_busbw.size(), expected.basis.c_str());
      x.detail += DescribeJoin(join, c.id, x.refs);
      CompleteSlowBandwidth(x, got, k.second, expected);
      x.refs.insert(x.refs.begin(), {s->example->where, "first record of this size"});
      out.push_back(std::move(x));
      break;  // the most frequent slow size speaks for the communicator
    }
  }
  return out;
}

}  // namespace commdx::analysis
