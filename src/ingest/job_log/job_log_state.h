// What the job-log readers keep of one file while reading it, so that a file read in windows
// (job_log_importer.cc's LogReader) gives the facts of the file read whole: the facts already
// taken (a watchdog line repeated in a traceback two windows on is the same fact, taken once),
// each rank's last "Running collective" line (the collective a barrier timeout further on names)
// and the file's process groups and DDP setups, completed line by line. Its size grows with the
// ranks and the facts, not with the text.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/job.h"

namespace commdx::ingest::job_log {

struct FileState {
  // Facts taken, by the key each reader tells repeats by.
  std::set<std::tuple<int, int64_t, std::string, int64_t>> timeouts;  // rank, seq, op, ran for
  std::set<std::tuple<int, std::string, int64_t>> statuses;           // rank, PG, failed seq
  std::set<std::tuple<int, int, std::string, int64_t, std::string>> events;
  std::set<std::pair<int, std::vector<int>>> barriers;  // reporter, missing ranks
  std::set<std::tuple<int, int, int64_t>> mismatches;   // the two ranks, seq
  // Each rank's last "[Rank R] Running collective: CollectiveFingerPrint(...)" in the text
  // before (the windows already read); filled by NoteLastRunning.
  std::unordered_map<int, CollectiveFingerprint> last_running;
  // Process groups and DDP setups of the file so far (ReadProcessGroups, ReadDdp), and the
  // groups (rank, PG ID) placed at their options line (it wins over an earlier settings line).
  JobLogFacts setup;
  std::set<std::pair<int, std::string>> placed_at_options;
};

}  // namespace commdx::ingest::job_log
