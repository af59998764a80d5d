// The checks that need every Inspector file at once: the same record read twice (a file given
// twice under two names, or copied), communicators whose ranks' files are not all there, and
// coll_sn gaps (a gap is a collective not recorded, not one NCCL skipped: up to NCCL 2.29 the
// plugin keeps only the last collective per communicator between two dump passes; from 2.30,
// whose records name the communicator, it keeps every one but those under
// NCCL_INSPECTOR_DUMP_MIN_SIZE_BYTES, 8 KiB by default, or without GPU kernel times, and a ring of
// 1,024 per communicator loses the oldest when a dump pass comes late).
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "ingest/inspector/inspector_importer.h"

namespace commdx::ingest {

namespace {

void DropDuplicates(Job& job) {
  std::set<std::tuple<std::string, int, std::string, uint64_t>> seen;
  std::vector<InspectorRecord> kept;
  kept.reserve(job.inspector.size());
  for (InspectorRecord& r : job.inspector) {
    if (!seen.insert({r.comm_id, r.rank, r.coll, r.coll_sn}).second) {
      job.quality.Add("inspector.duplicate_record", DiagSeverity::kNote,
                      "communicator " + r.comm_id + " rank " + std::to_string(r.rank) + " " +
                          r.coll + " #" + std::to_string(r.coll_sn) + " read before: read once",
                      r.where);
      continue;
    }
    kept.push_back(std::move(r));
  }
  job.inspector = std::move(kept);
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
