// Flight Recorder dumps seen per process group: each rank's collectives by sequence number,
// and how entries and their Python frames are described in findings (hang_flight.cc).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/finding.h"
#include "model/flight_recorder.h"

namespace commdx::analysis {

struct FrRankView {
  int rank = -1;
  std::string file;
  std::map<int64_t, const FrEntry*> by_seq;  // non-empty; the first entry of each sequence id
  int64_t last_seq() const { return by_seq.rbegin()->first; }
  const FrEntry* last() const { return by_seq.rbegin()->second; }
};

struct FrGroupView {
  std::string name;
  std::string desc;
  std::vector<FrRankView> ranks;  // ranks with collectives in this group, by rank
  std::vector<int> missing;       // ranks of the group (pg_config) with no dump at all
};

// Process groups by name, in name order.
std::vector<FrGroupView> GroupFlightDumps(const std::vector<FrDump>& dumps);

// "nccl:all_reduce [1024] Float".
std::string DescribeEntry(const FrEntry& e);
// What must match across ranks: op, input sizes and dtypes.
std::string Signature(const FrEntry& e);
// The entry as a line of evidence, then its Python frames (the caller's first).
void AddEntryEvidence(Finding& f, const FrRankView& r, const FrEntry& e);

// A number or rank a log may not have printed (-1 there), for people: "600000" or "unknown".
// No sentinel reaches a finding's text.
std::string NumOrUnknown(int64_t v);
// "ranks 0,2" / "rank 3"; a -1 in the list (a line without a rank) reads "a rank" alone, else
// "rank 3 and a rank the log does not name". Never "rank unknown".
std::string RanksPhrase(const std::vector<int>& ranks);

}  // namespace commdx::analysis
