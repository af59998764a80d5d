// The text form of the RAS report (`ncclras`, NCCL 2.24+), as 2.28.9 writes it. The parts read:
//
// Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors
//     #  in group  per comm  per node  per comm  in group
//     0         1         1         1         2         1   RUNNING  INCOMPLETE
//
// Errors
// ======
//
// DEAD
//   1 job process is considered dead (unreachable via the RAS network)
//   Process 1315 on node 127.0.0.1 managing GPU 0
//
// #0-0 (445d6303d77898d4) INCOMPLETE
//   Missing communicator data from 1 rank
//   Rank 1 -- GPU 0 managed by process 1315 on node 127.0.0.1
//
// Warnings
// ========
//
// #0-1 (809319a6f5ea93eb) MISMATCH
//   Communicator ranks have different AllReduce operation counts
//
// A group row stands for every communicator of the group (their hashes appear only under Errors
// and Warnings), so a group whose errors are OK is kept as one communicator without a hash.
#include <charconv>
#include <deque>
#include <map>
#include <set>
#include <string>

#include "base/text.h"
#include "ingest/ras/ras_importer.h"

namespace commdx::ingest::ras {

namespace {

std::vector<std::string_view> Words(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t') ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

bool ToInt(std::string_view s, int64_t& v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size();
}

//   Rank 1 -- GPU 0 managed by process 1315 on node 127.0.0.1
bool ReadRankLine(std::string_view line, RasRank& r) {
  auto w = Words(line);
  if (w.size() < 12 || w[0] != "Rank" || w[2] != "--" || w[7] != "process" || w[10] != "node")
    return false;
  int64_t rank = -1, gpu = -1;
  if (!ToInt(w[1], rank) || !ToInt(w[8], r.pid)) return false;
  if (ToInt(w[4], gpu)) r.gpu = static_cast<int>(gpu);
  r.rank = static_cast<int>(rank);
  r.host = std::string(w[11]);
  return true;
}

// #0-0 (445d6303d77898d4) INCOMPLETE
bool ReadCommHeading(std::string_view line, int& group, std::string& hash, std::string& kind) {
  auto w = Words(line);
  if (w.size() < 3 || w[0].size() < 4 || w[0][0] != '#' || w[1].size() < 3 || w[1][0] != '(')
    return false;
  std::string_view g = w[0].substr(1, w[0].find('-') - 1);
  int64_t gv = 0;
  if (!ToInt(g, gv)) return false;
  group = static_cast<int>(gv);
  hash = std::string(w[1].substr(1, w[1].size() - 2));
  kind = std::string(w[2]);
  return true;
}

}  // namespace

//   Process 1315 on node 127.0.0.1 managing GPU 0        (or "GPUs 0, 1")
bool ReadProcess(std::string_view line, RasRank& r) {
  auto w = Words(line);
  if (w.size() < 5 || w[0] != "Process" || w[2] != "on" || w[3] != "node") return false;
  if (!ToInt(w[1], r.pid)) return false;
  r.host = std::string(w[4]);
  int64_t gpu = -1;
  if (w.size() >= 8 && ToInt(Trim(w[7]).substr(0, w[7].find(',')), gpu))
    r.gpu = static_cast<int>(gpu);
  return true;
}

Status ParseRasText(const FileText& file, Job& job) {
  RasReport rep;
  rep.path = file.path;
  std::string_view data = file.data;
  std::string section, block;     // "Errors" / "Warnings"; "DEAD", "INCOMPLETE", "#g-c"
  std::map<int, RasComm> groups;  // the communicators table, by group
  std::set<int> blocked;          // groups with a "#g-c" block
  std::deque<RasComm> blocks;     // one per "#g-c (hash)" block (a deque: `comm` stays valid)
  RasComm* comm = nullptr;        // the block being read
  std::vector<std::string_view> lines;
  for (size_t at = 0; at < data.size();) {
    size_t end = data.find('\n', at);
    if (end == std::string_view::npos) end = data.size();
    std::string_view l = data.substr(at, end - at);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    lines.push_back(l);
    at = end + 1;
  }
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    SourceLoc where{file.path, static_cast<uint32_t>(i + 1)};
    if (i == 0 && StartsWith(line, "NCCL version ")) {
      auto w = Words(line);
      if (w.size() > 2) rep.nccl_version = std::string(w[2]);
      continue;
    }
    // A section title is the line above a row of '='.
    if (i + 1 < lines.size() && StartsWith(lines[i + 1], "===") && !line.empty()) {
      section = std::string(Words(line).empty() ? "" : Words(line)[0]);
      block.clear();
      comm = nullptr;
      ++i;
      continue;
    }
    if (Trim(line).empty()) continue;
    if (StartsWith(Trim(line), "Warning: encountered ") && Contains(line, "timeout")) {
      int64_t n = 0;
      auto w = Words(line);
      if (w.size() > 2 && ToInt(w[2], n)) rep.timeouts += static_cast<int>(n);
      continue;
    }
    if (section == "Communicators...") {
      //     0         1         1         1         2         1   RUNNING  INCOMPLETE
      auto w = Words(line);
      int64_t g = 0, per_comm = 0;
      if (w.size() == 8 && ToInt(w[0], g) && ToInt(w[4], per_comm)) {
        RasComm& c = groups[static_cast<int>(g)];
        c.size = static_cast<int>(per_comm);
        c.status = std::string(w[6]);
        c.errors = std::string(w[7]);
        c.where = where;
      }
      continue;
    }
    if (section != "Errors" && section != "Warnings") continue;
    if (line[0] != ' ') {  // a block heading
      int group = 0;
      std::string hash, kind;
      comm = nullptr;
      if (ReadCommHeading(line, group, hash, kind)) {
        block = "#";
        blocked.insert(group);
        RasComm c;
        c.hash = hash;
        c.errors = kind;
        c.where = where;
        if (auto g = groups.find(group); g != groups.end()) {
          c.size = g->second.size;
          c.status = g->second.status;
        }
        blocks.push_back(std::move(c));
        comm = &blocks.back();
      } else {
        block = std::string(Trim(line));
      }
      continue;
    }
    RasRank r;
    if (StartsWith(Trim(line), "Process ")) {
      if (!ReadProcess(Trim(line), r)) {
        job.quality.Add("ras.bad_line", DiagSeverity::kWarning,
                        "expected 'Process PID on node HOST managing GPU N'", where);
        continue;
      }
      if (block == "DEAD") {
        r.dead = true;
        rep.dead_processes.push_back(r);
      } else if (block == "INCOMPLETE") {
        rep.incomplete_processes.push_back(r);
      } else if (comm) {
        comm->notes.push_back(std::string(Trim(line)));
      }
      continue;
    }
    if (StartsWith(Trim(line), "Rank ") && Contains(line, " -- ")) {
      if (!ReadRankLine(Trim(line), r)) {
        job.quality.Add("ras.bad_line", DiagSeverity::kWarning,
                        "expected 'Rank R -- GPU G managed by process PID on node HOST'", where);
        continue;
      }
      if (comm && (Contains(comm->errors, "INCOMPLETE") ||
                   (!comm->notes.empty() && Contains(comm->notes.back(), "Missing")))) {
        r.unresponsive = true;
        comm->missing.push_back(r);
      } else if (comm) {
        comm->notes.push_back(std::string(Trim(line)));
      }
      continue;
    }
    if (comm) comm->notes.push_back(std::string(Trim(line)));
  }
  for (RasComm& c : blocks) rep.comms.push_back(std::move(c));
  // Processes RAS considers dead: their ranks in every communicator are dead, not only missing.
  for (RasComm& c : rep.comms)
    for (RasRank& m : c.missing)
      for (const RasRank& d : rep.dead_processes)
        if (d.pid == m.pid && d.host == m.host) m.dead = true;
  // Groups with no block of their own (healthy, or a report cut before its blocks) stay as one
  // communicator each, without a hash, so the report still says what it saw.
  for (auto& [g, c] : groups)
    if (!blocked.count(g)) rep.comms.push_back(std::move(c));
  if (rep.comms.empty() && rep.dead_processes.empty() && rep.incomplete_processes.empty())
    return MakeError(ErrorCode::kBadInput,
                     "RAS report without a communicators table or an Errors section "
                     "(expected the output of `ncclras`)",
                     {file.path});
  job.ras.push_back(std::move(rep));
  return Ok{};
}

}  // namespace commdx::ingest::ras
