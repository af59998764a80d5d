// The checks that need every Inspector file at once: the same record or Prometheus bucket read
// twice (files that overlap: a .prom and the node exporter page holding its lines),
// communicators whose ranks' files are not all there, and coll_sn gaps (a gap is a collective not
// recorded, not one NCCL skipped: up to NCCL 2.29 the plugin keeps only the last collective per
// communicator between two dump passes; from 2.30, whose records name the communicator, it keeps
// every one but those under NCCL_INSPECTOR_DUMP_MIN_SIZE_BYTES, 8 KiB by default, or without GPU
// kernel times, and a ring of 1,024 per communicator loses the oldest when a dump pass comes late).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "ingest/inspector/inspector_importer.h"

namespace commdx::ingest {

namespace {

std::string Place(const SourceLoc& where) {
  return where.file + (where.line ? ":" + std::to_string(where.line) : "");
}

// One rank's record of one collective, wherever it was read (a JSONL line, a 2.29 Prometheus
// label set): the first place is kept.
void DropDuplicates(Job& job) {
  std::map<std::tuple<std::string, int, std::string, uint64_t>, SourceLoc> seen;
  std::vector<InspectorRecord> kept;
  kept.reserve(job.inspector.size());
  for (InspectorRecord& r : job.inspector) {
    auto [it, fresh] = seen.try_emplace({r.comm_id, r.rank, r.coll, r.coll_sn}, r.where);
    if (!fresh) {
      job.quality.Add("inspector.duplicate_record", DiagSeverity::kNote,
                      "communicator " + r.comm_id + " rank " + std::to_string(r.rank) + " " +
                          r.coll + " #" + std::to_string(r.coll_sn) + " read before (" +
                          Place(it->second) + "): read once",
                      r.where);
      continue;
    }
    kept.push_back(std::move(r));
  }
  job.inspector = std::move(kept);
}

// NCCL 2.30's buckets: one GPU's aggregate of one dump pass. The same bucket in another file,
// every label and number alike, is that pass read twice: the .prom beside the node exporter page
// that holds its lines, or a copy of the file from before it was rewritten beside a later one
// (whole copies of one text are skipped before they are read: load.same_file_twice). Two ranks
// on one GPU, or two passes, differ in their numbers; buckets of one file never repeat.
using BucketKey =
    std::tuple<std::string, std::string, std::string, std::string, int, int, int, std::string, bool,
               std::string, std::string, double, double, int64_t, double, double>;

// A NaN sample ("NaN" is valid exposition text) would break the map's order: it keys as -2.
double Ordered(double v) { return std::isnan(v) ? -2 : v; }

BucketKey KeyOf(const InspectorBucket& b) {
  return {b.version,
          b.node,
          b.gpu,
          b.comm,
          b.rank,
          b.n_ranks,
          b.nnodes,
          b.op,
          b.p2p,
          b.size_label,
          b.algo_proto,
          Ordered(b.busbw_gbps),
          Ordered(b.exec_us),
          b.count,
          Ordered(b.p99_us),
          Ordered(b.max_us)};
}

void DropDuplicateBuckets(Job& job) {
  std::map<BucketKey, SourceLoc> seen;
  std::vector<InspectorBucket> kept;
  kept.reserve(job.inspector_buckets.size());
  for (InspectorBucket& b : job.inspector_buckets) {
    auto [it, fresh] = seen.try_emplace(KeyOf(b), b.where);
    if (!fresh && it->second.file != b.where.file) {
      job.quality.Add("inspector.duplicate_record", DiagSeverity::kNote,
                      b.op + " " + b.size_label + " of communicator " + b.comm + " on " + b.node +
                          " " + b.gpu + ": the same samples as " + Place(it->second) +
                          " (one dump pass read twice): read once",
                      b.where);
      continue;
    }
    kept.push_back(std::move(b));
  }
  job.inspector_buckets = std::move(kept);
}

struct RankSeen {
  std::set<uint64_t> sns;
  SourceLoc first;
};

struct CommSeen {
  int n_ranks = 0;
  std::string name;  // comm_name: only NCCL 2.30's plugin writes one, and its gaps differ
  std::map<int, RankSeen> ranks;                        // ranks seen
  std::map<std::pair<int, std::string>, RankSeen> sns;  // per rank and function
};

}  // namespace

void FinishInspector(Job& job) {
  DropDuplicateBuckets(job);
  if (job.inspector.empty()) return;
  DropDuplicates(job);
  std::map<std::string, CommSeen> comms;
  for (const InspectorRecord& r : job.inspector) {
    CommSeen& c = comms[r.comm_id];
    c.n_ranks = std::max(c.n_ranks, r.n_ranks);
    if (c.name.empty()) c.name = r.comm_name;
    if (!c.ranks.count(r.rank)) c.ranks[r.rank].first = r.where;
    RankSeen& rs = c.sns[{r.rank, r.coll}];
    if (rs.sns.empty()) rs.first = r.where;
    rs.sns.insert(r.coll_sn);
  }
  for (const auto& [id, c] : comms) {
    std::string comm = "communicator " + id;
    if (!c.name.empty() && c.name != "unknown") comm += " (\"" + c.name + "\")";
    if (static_cast<int>(c.ranks.size()) < c.n_ranks) {
      std::string missing;
      int listed = 0, count = 0;
      for (int rank = 0; rank < c.n_ranks; ++rank) {
        if (c.ranks.count(rank)) continue;
        ++count;
        if (listed++ < 8) missing += (missing.empty() ? "" : ", ") + std::to_string(rank);
      }
      if (count > listed) missing += ", ...";
      job.quality.Add("inspector.missing_ranks", DiagSeverity::kWarning,
                      comm + " has " + std::to_string(c.n_ranks) + " ranks; no record of " +
                          std::to_string(count) + " (" + missing +
                          "): its collectives are not matched across ranks",
                      c.ranks.begin()->second.first);
    }
    for (const auto& [key, rs] : c.sns) {
      uint64_t span = *rs.sns.rbegin() - *rs.sns.begin() + 1;
      uint64_t gaps = span - rs.sns.size();
      if (gaps == 0) continue;
      const char* why = c.name.empty()
                            ? "the plugin keeps one per dump pass"
                            : "NCCL 2.30's plugin skips those under 8 KiB or without GPU kernel "
                              "times (NCCL_INSPECTOR_DUMP_MIN_SIZE_BYTES, "
                              "NCCL_INSPECTOR_REQUIRE_KERNEL_TIMING)";
      job.quality.Add("inspector.sn_gaps", DiagSeverity::kNote,
                      comm + " rank " + std::to_string(key.first) + ": " + std::to_string(gaps) +
                          " of " + std::to_string(span) + " " + key.second + " not recorded (" +
                          why + ")",
                      rs.first);
    }
  }
}

}  // namespace commdx::ingest
