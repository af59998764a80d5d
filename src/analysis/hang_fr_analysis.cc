// hang.rank_behind, hang.desync and hang.stuck_collective from the Flight Recorder analyzer's
// own verdicts (fr_trace / torchfrtrace output): the culprit rank, the error type and the
// sequence number it names, as it names them. The analyzer's "culprit" is the rank it compared
// against (components/utils.py says so: the rank it started from may be the culprit instead),
// so a state mismatch names the rank in the earlier state, the one behind.
#include <algorithm>

#include "analysis/catalogue.h"
#include "analysis/hang_analyzers.h"
#include "analysis/hang_flight_util.h"
#include "base/str_format.h"

namespace commdx::analysis {

namespace {

constexpr size_t kMaxFindings = 5;  // the analyzer prints up to 10 mismatches (--mismatch_cap)

// "nccl:all_reduce #8 of group 0:default_pg".
std::string What(const FrAnalyzerEntry& e) {
  std::string s = (e.collective.empty() ? std::string("collective") : e.collective) + " #" +
                  NumOrUnknown(e.seq);
  if (!e.group.empty()) s += " of group " + e.group;
  return s;
}

// scheduled < started < completed; -1 for anything else.
int StateOrder(std::string_view s) {
  if (s == "scheduled") return 0;
  if (s == "started") return 1;
  if (s == "completed") return 2;
  return -1;
}

// "Expected state: 'scheduled' does not match found state: 'completed'" -> both states.
bool States(const std::string& detail, std::string& expected, std::string& found) {
  auto quoted = [&](std::string_view key, std::string& into) {
    size_t at = detail.find(key);
    if (at == std::string::npos) return false;
    size_t open = detail.find('\'', at), close = detail.find('\'', open + 1);
    if (open == std::string::npos || close == std::string::npos) return false;
    into = detail.substr(open + 1, close - open - 1);
    return true;
  };
  return quoted("Expected state:", expected) && quoted("found state:", found);
}

void Evidence(Finding& f, const FrAnalyzerEntry& e) {
  f.refs.push_back({e.loc, e.line});
  // The frames are the lines below the headline's fields: the file, not the headline's line.
  for (size_t i = 0; i < e.frames.size() && i < 4; ++i)
    f.refs.push_back({SourceLoc{e.loc.file}, "    " + e.frames[i]});
  if (e.seq >= 0) f.metrics.push_back({"seq", static_cast<double>(e.seq), Unit::kNone});
}

constexpr const char* kFixFrames =
    "The analyzer's stack trace is where the collective was issued; compare what the named "
    "rank(s) did at that point (a rank-dependent branch, an exception swallowed, a different "
    "shape).";

Finding NotJoined(const FrAnalyzerEntry& e) {
  Finding f = NewFinding("hang.rank_behind");
  f.severity = Severity::kError;  // every rank's dump was compared: not an inference from logs
  if (e.missing_ranks.size() == 1) f.rank = e.missing_ranks[0];
  f.title = StrFormat("Flight Recorder analyzer: %s never joined %s (state on the others: %s)",
                      RanksPhrase(e.missing_ranks).c_str(), What(e).c_str(),
                      e.state.empty() ? "unknown" : e.state.c_str());
  f.detail =
      "PyTorch's Flight Recorder analyzer matched every rank's dump and found no entry for this "
      "collective on these ranks: they never issued it, and the others waited in it.";
  if (e.world_size > 0) f.detail += StrFormat(" World size of the group: %d.", e.world_size);
  f.fix = kFixFrames;
  f.metrics.push_back({"missing_ranks", static_cast<double>(e.missing_ranks.size()), Unit::kRanks});
  Evidence(f, e);
  return f;
}

Finding Errors(const FrAnalyzerEntry& e) {
  const FrCulprit& c = e.culprits.front();
  std::string culprits;
  for (const auto& x : e.culprits)
    culprits += (culprits.empty() ? "" : "; ") +
                StrFormat("culprit rank %d, %s", x.rank, x.error_type.c_str());
  std::string expected, found;
  const bool state = c.error_type == "COLLECTIVE_STATE_MISMATCH";
  Finding f = NewFinding(state ? FindingId("hang.rank_behind") : FindingId("hang.desync"));
  f.severity = Severity::kError;
  f.title =
      StrFormat("Flight Recorder analyzer: %s has errors (%s)", What(e).c_str(), culprits.c_str());
  f.detail = "As the analyzer prints it: " + c.detail + ".";
  if (state && States(c.detail, expected, found) && StateOrder(expected) >= 0 &&
      StateOrder(found) >= 0 && expected != found) {
    // "expected" is the state on the rank the analyzer started from; "found" the culprit's.
    if (StateOrder(found) < StateOrder(expected)) {
      f.rank = c.rank;
      f.detail += StrFormat(" Rank %d is behind: its copy is still %s where the others' is %s.",
                            c.rank, found.c_str(), expected.c_str());
    } else {
      f.detail += StrFormat(
          " The analyzer's culprit, rank %d, is ahead (%s); the ranks still %s are the ones "
          "behind.",
          c.rank, found.c_str(), expected.c_str());
    }
  } else {
    f.rank = c.rank;
    if (!state)
      f.detail +=
          " The ranks issued different collectives (or sizes, or dtypes) at this "
          "sequence number: NCCL then hangs or exchanges wrong data.";
  }
  f.fix = kFixFrames;
  f.metrics.push_back({"culprits", static_cast<double>(e.culprits.size()), Unit::kRanks});
  Evidence(f, e);
  return f;
}

Finding Other(const FrAnalyzerEntry& e) {
  Finding f = NewFinding(e.verdict == FrVerdict::kSizeMismatch ? FindingId("hang.desync")
                                                                 : FindingId("hang.stuck_collective"));
  switch (e.verdict) {
    case FrVerdict::kSizeMismatch:
      f.severity = Severity::kError;
      f.title = StrFormat(
          "Flight Recorder analyzer: %s sends and receives different element "
          "counts across ranks",
          What(e).c_str());
      f.detail =
          "The all-to-all's total input and output element counts differ: some rank "
          "passed other split sizes than its peers expect.";
      break;
    case FrVerdict::kUndecided:
      f.title = StrFormat(
          "Flight Recorder analyzer could not decide what is wrong: no dump from "
          "%s",
          RanksPhrase(e.missing_ranks).c_str());
      f.detail =
          "The ranks that left no dump are the first suspects: a rank that exited, "
          "crashed or never reached the timeout writes none.";
      if (e.missing_ranks.size() == 1) f.rank = e.missing_ranks[0];
      break;
    case FrVerdict::kMissingDumps:
      f.title = StrFormat("Flight Recorder analyzer stopped: no dump from %s",
                          RanksPhrase(e.missing_ranks).c_str());
      f.detail =
          "The analyzer needs every rank's dump (or --allow-incomplete-ranks); the ranks "
          "that wrote none are the first suspects.";
      if (e.missing_ranks.size() == 1) f.rank = e.missing_ranks[0];
      break;
    default:
      f.title =
          "Flight Recorder analyzer found every rank in the same collective, matching: it "
          "did not complete";
      f.detail =
          "No rank is behind and none disagrees, yet the collective timed out: the "
          "transfer itself is stuck (network, NCCL transport, a GPU) or waits behind long "
          "work queued before it.";
      break;
  }
  f.fix =
      "Rerun the analyzer with every rank's dump; look at the NCCL and system logs of the "
      "ranks named.";
  Evidence(f, e);
  return f;
}

}  // namespace

std::vector<Finding> FindFrAnalysisHang(const Job& job, const Options&) {
  std::vector<Finding> out;
  size_t skipped = 0;
  bool undecided_done = false;
  for (const auto& e : job.job_log.fr_analysis) {
    if (out.size() >= kMaxFindings) {
      ++skipped;
      continue;
    }
    if (e.verdict == FrVerdict::kNotJoined) {
      out.push_back(NotJoined(e));
    } else if (e.verdict == FrVerdict::kErrors && !e.culprits.empty()) {
      out.push_back(Errors(e));
    } else if (e.verdict == FrVerdict::kErrors) {
      Finding f = NewFinding("hang.desync");
      f.title =
          StrFormat("Flight Recorder analyzer: %s has errors (culprit: unknown)", What(e).c_str());
      f.detail = "The analyzer's 'error msg' line is not in the input.";
      f.fix = kFixFrames;
      Evidence(f, e);
      out.push_back(std::move(f));
    } else if (e.verdict == FrVerdict::kUndecided) {
      if (undecided_done) continue;  // printed once per collective it could not decide
      undecided_done = true;
      out.push_back(Other(e));
    } else {
      out.push_back(Other(e));
    }
  }
  if (skipped > 0 && !out.empty())
    out.back().detail += StrFormat(" (%zu more analyzer entries not listed.)", skipped);
  return out;
}

}  // namespace commdx::analysis
