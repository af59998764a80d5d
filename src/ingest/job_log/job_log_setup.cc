// ProcessGroupNCCL start-up lines (PyTorch 2.2 - 2.11; older ones put everything on the options
// line, with the pre-2.2 variable names):
//
//   [I1201 ... ProcessGroupNCCL.cpp:988] [PG ID 0 PG GUID 0 Rank 0] ProcessGroupNCCL
//     initialization options: size: 1, global rank: 0, TIMEOUT(ms): 5000,
//     USE_HIGH_PRIORITY_STREAM: 0, SPLIT_FROM: 0, SPLIT_COLOR: -2, PG Name: 0
//   [I1201 ... ProcessGroupNCCL.cpp:999] [PG ID 0 PG GUID 0 Rank 0] ProcessGroupNCCL
//     environments: NCCL version: 2.28.9, TORCH_NCCL_ASYNC_ERROR_HANDLING: 1, ...
//   ... HeartbeatMonitor environments: TORCH_NCCL_ENABLE_MONITORING (Whether to kill program
//     when no watchdog heartbeat detected): 1, TORCH_NCCL_DUMP_ON_TIMEOUT: 1, ...
//   [Rank 0] ProcessGroupNCCL initialization options:NCCL_ASYNC_ERROR_HANDLING: 1, ...,
//     TIMEOUT(ms): 1800000, ..., TORCH_DISTRIBUTED_DEBUG: OFF, NCCL_DEBUG: OFF, ID=...  (<= 2.1)
//
// DDP (reducer.cpp, logger.cpp): "Reducer initialized with bucket_bytes_cap: 4194304
// first_bucket_bytes_cap: ...", "DDP Initialized with: " followed by one "key: value" a line up
// to an empty line, "2 buckets rebuilt with size limits: 4194304, 4194304 bytes.".
#include "ingest/job_log/job_log_setup.h"

#include <algorithm>
#include <array>
#include <map>
#include <unordered_map>
#include <utility>

#include "base/text.h"
#include "ingest/job_log/job_log_text.h"

namespace commdx::ingest::job_log {

namespace {

constexpr std::string_view kOptions = "ProcessGroupNCCL initialization options:";
constexpr std::string_view kEnvironments = " environments: ";
constexpr std::string_view kDdp = "DDP Initialized with:";
constexpr std::string_view kReducer = "Reducer initialized with bucket_bytes_cap: ";
constexpr std::string_view kRebuilt = " buckets rebuilt with size limits: ";
constexpr size_t kDdpBlockMax = 8192;  // the block is ~30 short lines

// out.process_groups by (rank, PG ID): a log of thousands of ranks looks each one up once.
using GroupIndex = std::map<std::pair<int, std::string>, size_t>;

ProcessGroupInit& GroupFor(JobLogFacts& out, GroupIndex& index, int rank, const std::string& pg) {
  auto [it, inserted] = index.try_emplace({rank, pg}, out.process_groups.size());
  if (inserted) {
    out.process_groups.emplace_back();
    out.process_groups.back().rank = rank;
    out.process_groups.back().pg = pg;
  }
  return out.process_groups[it->second];
}

bool IsSettingName(std::string_view k) { return StartsWith(k, "TORCH_") || StartsWith(k, "NCCL_"); }

// "key: value, key (what it does): value, ..." into the group.
void ReadPairs(std::string_view text, ProcessGroupInit& g) {
  for (std::string_view item : Split(text, ',')) {
    size_t colon = item.find(": ");
    if (colon == std::string_view::npos) continue;
    std::string_view key = Trim(item.substr(0, colon));
    key = Trim(key.substr(0, key.find(" (")));
    std::string_view value = Trim(item.substr(colon + 2));
    if (key == "size") g.size = static_cast<int>(ParseInt(value).value_or(-1));
    if (key == "global rank") g.rank = static_cast<int>(ParseInt(value).value_or(g.rank));
    if (key == "TIMEOUT(ms)") g.timeout_ms = ParseInt(value).value_or(-1);
    if (key == "PG Name") g.pg_name = std::string(value);
    if (key == "PG Description") g.pg_desc = std::string(value);
    if (key == "NCCL version") g.nccl_version = std::string(value);
    if (!IsSettingName(key) || value.empty()) continue;
    bool known = std::any_of(g.settings.begin(), g.settings.end(),
                             [&](const EnvVar& v) { return v.name == key; });
    if (!known) g.settings.push_back({std::string(key), std::string(value), ""});
  }
}

// Each match of any of `keys` in `data`, in file order: visit(which key, offset). Facts a later
// line completes then read the same whether the file is read whole or window by window.
template <size_t N, typename Visit>
void EachInOrder(std::string_view data, const std::array<std::string_view, N>& keys, Visit visit) {
  std::array<size_t, N> next;
  for (size_t i = 0; i < N; ++i) next[i] = FindFrom(data, keys[i], 0);
  while (true) {
    size_t k = 0;
    for (size_t i = 1; i < N; ++i)
      if (next[i] < next[k]) k = i;
    if (next[k] == std::string_view::npos) return;
    visit(k, next[k]);
    next[k] = FindFrom(data, keys[k], next[k] + keys[k].size());
  }
}

void ReadGroupLine(const FileText& f, size_t at, bool options, LineCounter& lines,
                   GroupIndex& index, FileState& state) {
  const std::string_view marker = options ? kOptions : kEnvironments;
  size_t start = 0;
  std::string_view line = LineAround(f.data, at, start);
  std::string_view head = line.substr(0, at - start);
  if (!options && head.find("ProcessGroupNCCL") == std::string_view::npos) return;
  std::string pg, desc;
  PgOf(head, pg, desc);
  std::string_view pairs = line.substr(at - start + marker.size());
  int rank = static_cast<int>(NumberAfter(pairs, "global rank: "));
  if (rank < 0) rank = RankOf(head);
  ProcessGroupInit& g = GroupFor(state.setup, index, rank, pg);
  if (g.pg_desc.empty()) g.pg_desc = desc;
  const bool first_options = options && state.placed_at_options.insert({rank, pg}).second;
  if (g.loc.file.empty() || first_options) g.loc = lines.At(f.path, start);  // counting costs
  ReadPairs(pairs, g);
}

std::vector<int64_t> NumberList(std::string_view s) {
  std::vector<int64_t> out;
  for (std::string_view x : Split(s, ','))
    if (auto v = ParseInt(Trim(x)); v && *v >= 0) out.push_back(*v);
  return out;
}

// out.ddp by rank.
using DdpIndex = std::unordered_map<int, size_t>;

DdpInit& DdpFor(JobLogFacts& out, DdpIndex& index, int rank) {
  auto [it, inserted] = index.try_emplace(rank, out.ddp.size());
  if (inserted) {
    out.ddp.emplace_back();
    out.ddp.back().rank = rank;
  }
  return out.ddp[it->second];
}

// The rest of the line after data[at] (without '\r').
std::string_view RestOfLine(std::string_view data, size_t at) {
  std::string_view rest = data.substr(at);
  rest = rest.substr(0, rest.find('\n'));
  if (!rest.empty() && rest.back() == '\r') rest.remove_suffix(1);
  return rest;
}

}  // namespace

void ReadProcessGroups(const FileText& f, FileState& state) {
  GroupIndex index;
  const auto& groups = state.setup.process_groups;
  for (size_t i = 0; i < groups.size(); ++i) index.try_emplace({groups[i].rank, groups[i].pg}, i);
  LineCounter lines(f);
  // The options and the settings lines in the order printed: the settings of a group come in
  // that order, whether the file is read whole or in windows.
  EachInOrder<2>(f.data, {kOptions, kEnvironments}, [&](size_t key, size_t at) {
    ReadGroupLine(f, at, key == 0, lines, index, state);
  });
}

void ReadDdp(const FileText& f, JobLogFacts& out) {
  std::string_view data = f.data;
  LineCounter lines(f);
  DdpIndex index;
  for (size_t i = 0; i < out.ddp.size(); ++i) index.try_emplace(out.ddp[i].rank, i);
  // In the order printed: a rank's setup is made by its first line, a reducer line fills a
  // bucket cap only until a block gives one.
  EachInOrder<3>(data, {kDdp, kReducer, kRebuilt}, [&](size_t key, size_t at) {
    size_t start = 0;
    DdpInit& d = DdpFor(out, index, RankOf(LineAround(data, at, start)));
    if (key == 0) {
      if (d.loc.file.empty()) d.loc = lines.At(f.path, start);  // the first block's line
      std::string_view block = data.substr(at, kDdpBlockMax);
      block = block.substr(0, std::min(block.find("\n\n"), block.find(kDdp, kDdp.size())));
      if (int64_t cap = NumberAfter(block, "\nbucket_cap_bytes: "); cap >= 0)
        d.bucket_cap_bytes = cap;
      d.find_unused_parameters = static_cast<int>(NumberAfter(block, "find_unused_parameters: "));
      if (size_t p = block.find("\nbucket_sizes: "); p != std::string_view::npos)
        d.bucket_sizes = NumberList(RestOfLine(block, p + 15));
    } else if (key == 1) {
      if (d.bucket_cap_bytes < 0) d.bucket_cap_bytes = NumberAfter(data.substr(at), kReducer);
    } else {
      std::string_view list = RestOfLine(data, at + kRebuilt.size());
      d.rebuilt_limits = NumberList(list.substr(0, list.find(" bytes")));
    }
  });
}

size_t OpenDdpBlockStart(std::string_view data) {
  const size_t from = data.size() > kDdpBlockMax ? data.size() - kDdpBlockMax : 0;
  size_t at = data.substr(from).rfind(kDdp);
  if (at == std::string_view::npos) return data.size();
  at += from;
  if (data.find("\n\n", at) != std::string_view::npos) return data.size();
  const size_t line = data.rfind('\n', at);
  return line == std::string_view::npos ? 0 : line + 1;
}

void AddSettingsToEnv(const JobLogFacts& facts, EnvSnapshot& env) {
  for (const ProcessGroupInit& g : facts.process_groups)
    for (const EnvVar& v : g.settings) {
      if (env.Find(v.name)) continue;
      env.vars.push_back({v.name, v.value,
                          "ProcessGroupNCCL, " + g.loc.file + ":" + std::to_string(g.loc.line) +
                              " (rank " + std::to_string(g.rank) + ")"});
      env.captured = true;
    }
}

}  // namespace commdx::ingest::job_log
